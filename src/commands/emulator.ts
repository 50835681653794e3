import { readFile } from 'node:fs/promises';
import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import { isLoopbackHost } from '../config/tenant.js';
import { parsePublicKey } from '../emulator/client-assertion.js';
import { ENV_SHELLS, type EnvShell, envLines, isEnvShell } from '../emulator/env-lines.js';
import {
  formatLimitValue,
  isUnknownUserDeleteStatus,
  LIMIT_NAMES,
  LIMITS,
  type Limit,
  limitViolation,
  UNKNOWN_USER_DELETE,
  UNKNOWN_USER_DELETE_STATUSES,
} from '../emulator/limits.js';
import { clientSecretViolation, type EmulatorOptions } from '../emulator/options.js';
import type { BackgroundEmulator, RunningEmulator } from '../emulator/server.js';
import { CliError, interruption, UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';
import { shellWord } from '../util/shell-word.js';

/** The port `svcadm emulator` listens on unless told otherwise (0 picks a free one). */
export const DEFAULT_EMULATOR_PORT = LIMITS.port.commandDefault;

/** The options exactly as commander hands them over: strings for the limits (named after their flags), booleans. */
export interface EmulatorFlags {
  [attribute: string]: string | boolean | undefined;
  host?: string;
  /** The admin client's secret: the global `--client-secret`, which commander hands to the root command. */
  clientSecret?: string;
  /** Path of a PEM public key for the admin client. */
  clientPublicKey?: string;
  control?: boolean;
  logRequests?: boolean;
  /** false with `--no-directory-provisioning`. */
  directoryProvisioning?: boolean;
  /** false with `--no-rate-limit-policies`. */
  rateLimitPolicies?: boolean;
}

/** commander's attribute name of a flag: `--drop-streams-after` -> `dropStreamsAfter`. */
function attributeOf(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

const FLAGGED_LIMITS = LIMIT_NAMES.flatMap((name) => {
  const limit: Limit = LIMITS[name];
  return limit.flag === undefined ? [] : [{ name, flag: limit.flag, limit }];
});

function placeholder(limit: Limit): string {
  if (limit.unit === 'ms') return '<duration>';
  if (limit.unit === 'share') return '<p>';
  return '<n>';
}

function flagHelp(limit: Limit): string {
  const shown = formatLimitValue(limit, limit.commandDefault ?? limit.default);
  return `${limit.help} (default ${shown})`;
}

/** One flag's text -> its value; out of the table's bounds is a UsageError. A bare number is milliseconds for `ms`. */
function flagValue(limit: Limit, flag: string, text: string): number {
  const trimmed = text.trim();
  let value = Number.NaN;
  if (limit.unit === 'ms') value = /^\d+$/.test(trimmed) ? Number(trimmed) : parseDuration(trimmed, flag);
  else if (limit.integer ? /^\d+$/.test(trimmed) : /^\d+(\.\d+)?$/.test(trimmed)) value = Number(trimmed);
  if (limitViolation(limit, value) === undefined) return value;
  const kind = limit.unit === 'ms' ? 'a duration' : limit.integer ? 'a whole number' : 'a number';
  const range =
    limit.max === Number.MAX_SAFE_INTEGER
      ? `of at least ${formatLimitValue(limit, limit.min)}`
      : `from ${formatLimitValue(limit, limit.min)} to ${formatLimitValue(limit, limit.max)}`;
  throw new UsageError(`${flag} must be ${kind} ${range}, got '${text}'`);
}

/** argv strings -> typed emulator options; any bad value is a UsageError (exit 2). */
export function parseEmulatorFlags(flags: EmulatorFlags): EmulatorOptions {
  const o: EmulatorOptions = { host: flags.host ?? '127.0.0.1', port: DEFAULT_EMULATOR_PORT };
  if (o.host === '') throw new UsageError('--host must not be empty');
  for (const { name, flag, limit } of FLAGGED_LIMITS) {
    const text = flags[attributeOf(flag)];
    if (typeof text === 'string') o[name] = flagValue(limit, flag, text);
  }
  const unknownUserDelete = flags[attributeOf(UNKNOWN_USER_DELETE.flag)];
  if (typeof unknownUserDelete === 'string') {
    const status = Number(unknownUserDelete.trim());
    if (!/^\d+$/.test(unknownUserDelete.trim()) || !isUnknownUserDeleteStatus(status)) {
      throw new UsageError(
        `${UNKNOWN_USER_DELETE.flag} must be ${UNKNOWN_USER_DELETE_STATUSES.join(' or ')}, got '${unknownUserDelete}'`,
      );
    }
    o.unknownUserDeleteStatus = status;
  }
  if (typeof flags.clientSecret === 'string') {
    const violation = clientSecretViolation(flags.clientSecret);
    if (violation !== undefined) throw new UsageError(`--client-secret ${violation}`);
    o.clientSecret = flags.clientSecret;
  }
  if (flags.withoutEventsFeature === true) o.eventsFeature = false;
  o.control = flags.control === true;
  if (flags.directoryProvisioning === false) o.directoryProvisioning = false;
  if (flags.rateLimitPolicies === false) o.rateLimitPolicies = false;
  return o;
}

export function registerEmulatorCommand(program: SvcadmCommand, host: Host): void {
  const command = program
    .command('emulator')
    .description('run a local tenant that speaks the interface (seeded data, fault injection)')
    .streaming();
  for (const { flag, limit } of FLAGGED_LIMITS) {
    command.option(`${flag} ${placeholder(limit)}`, flagHelp(limit));
    if (flag === LIMITS.port.flag) command.option('--host <addr>', 'address to bind (default 127.0.0.1)');
  }
  command.option(
    `${UNKNOWN_USER_DELETE.flag} <status>`,
    `${UNKNOWN_USER_DELETE.help} (default ${UNKNOWN_USER_DELETE.default})`,
  );
  command
    .option(
      '--client-secret <secret>',
      "the admin client's secret (default: a new random one on every start, printed at start)",
    )
    .option(
      '--client-public-key <pem-file>',
      'register this RSA public key on the admin client: it may then authenticate with a signed client_assertion',
    )
    .option('--without-events-feature', 'model a tenant without the Events feature: GET /events answers 404')
    .option('--control', 'enable the control API under /__emulator/ (fault injection for tests)')
    .option('--no-directory-provisioning', 'model a tenant without directory provisioning (403 on that list)')
    .option('--no-rate-limit-policies', 'model a tenant without rate limit policies (403 on those endpoints)')
    .option('--log-requests', 'print one line per request on stderr')
    .environment([])
    .option(
      '--print-env [shell]',
      `start in the background, print the variables to eval and exit; shell: ${ENV_SHELLS.join(', ')} (default sh)`,
    )
    .addHelpText(
      'after',
      `\nDurations (${FLAGGED_LIMITS.filter((f) => f.limit.unit === 'ms')
        .map((f) => f.flag)
        .join(', ')}): 250 is milliseconds; 2s, 5m and 1h work too.\n${examples(
        'svcadm emulator',
        'eval "$(svcadm emulator --print-env --port 0)"   # bash, zsh',
        'kill "$SVCADM_EMULATOR_PID"   # stops it',
        'eval (svcadm emulator --print-env fish --port 0)   # fish',
        'svcadm emulator --port 0 --json --control --rate-limit 5 --latency 200',
      )}`,
    )
    .action(host.action<[], EmulatorFlags>((inv, _args, flags) => runEmulatorCommand(inv, flags)));
}

async function runEmulatorCommand(inv: Invocation, flags: EmulatorFlags): Promise<void> {
  const options = parseEmulatorFlags({ ...flags, clientSecret: inv.globals.credentials.clientSecret });
  if (typeof flags.clientPublicKey === 'string') {
    options.adminPublicKeys = [await readPemFile(flags.clientPublicKey)];
  }
  if (flags.printEnv === undefined) return runEmulator(inv, options, flags.logRequests === true);
  const shell = flags.printEnv === true ? 'sh' : String(flags.printEnv);
  if (!isEnvShell(shell)) throw new UsageError(`--print-env takes ${ENV_SHELLS.join(', ')}, got '${shell}'`);
  if (inv.globals.formatChosen)
    throw new UsageError('--print-env prints shell lines; it does not go with --json or -o');
  if (flags.logRequests === true) {
    throw new UsageError('--log-requests does not go with --print-env: the background emulator has no terminal');
  }
  await runInBackground(inv, options, shell);
}

/** Refusals of the address or of an option become usage errors (exit 2), as the flags' own checks do. */
function startFailure(err: unknown, options: EmulatorOptions): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new UsageError(
      `port ${options.port} is already in use`,
      'pick another with --port, or --port 0 for a free one',
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new UsageError(`cannot bind to ${options.host}`);
  if (err instanceof RangeError) return new UsageError(err.message);
  return err;
}

/** The secrets are random per start; what other machines could still reach is the control API. */
function warnAboutSecrets(inv: Invocation, options: EmulatorOptions): void {
  if (options.control !== true || isLoopbackHost(options.host ?? '127.0.0.1')) return;
  inv.io.notice(
    `svcadm emulator: warning: ${options.host} is reachable from other machines, and so is the control API (--control): anyone there can reset the tenant and inject faults`,
  );
}

/**
 * `--print-env`: starts the emulator as a detached process, prints only the `SVCADM_*` variables (with the
 * process id, to stop it) for the shell's `eval`, and returns once it listens.
 */
export async function runInBackground(inv: Invocation, options: EmulatorOptions, shell: EnvShell): Promise<void> {
  const { ctx, io } = inv;
  const { startInBackground, BackgroundStartError } = await import('../emulator/server.js');
  let emulator: BackgroundEmulator;
  try {
    emulator = await startInBackground(options, { env: { ...ctx.env }, signal: ctx.interrupt });
  } catch (err) {
    if (ctx.interrupt.aborted) throw interruption(ctx.interrupt);
    if (err instanceof BackgroundStartError) {
      if (err.usage) throw new UsageError(err.message);
      const refusal = startFailure(err, options);
      if (refusal !== err) throw refusal;
      throw new CliError('bug', `the background emulator did not start: ${err.message}`);
    }
    throw err;
  }
  await io.write(envLines(shell, { ...emulator.env, SVCADM_EMULATOR_PID: String(emulator.pid) }));
  warnAboutSecrets(inv, options);
  const pid = shell === 'fish' ? '$SVCADM_EMULATOR_PID' : '"$SVCADM_EMULATOR_PID"';
  io.notice(
    `svcadm emulator: running in the background at ${emulator.url} (process ${emulator.pid}); stop it with: kill ${pid}`,
  );
}

/** Starts the emulator, prints how to use it, and serves until Ctrl-C or SIGTERM. */
export async function runEmulator(inv: Invocation, options: EmulatorOptions, logRequests: boolean): Promise<void> {
  // Loaded here so that no other command pays for the emulator's modules.
  const { startEmulator } = await import('../emulator/server.js');
  const { ctx, io } = inv;
  if (logRequests) options.log = (line) => io.stderr.write(`${line}\n`);
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator(options);
  } catch (err) {
    throw startFailure(err, options);
  }
  // A script reads the start line (-o json); a person gets the banner (the default, whatever the terminal).
  await inv.out.announce(startLine(emulator, options), humanBanner(emulator, options));
  warnAboutSecrets(inv, options);
  io.notice('svcadm emulator: running; press Ctrl-C to stop');

  await new Promise<void>((resolve) => {
    if (ctx.interrupt.aborted) return resolve();
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  io.notice('svcadm emulator: stopped');
}

async function readPemFile(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --client-public-key ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  const key = parsePublicKey(pem);
  if (typeof key === 'string') throw new UsageError(`--client-public-key ${path}: ${key}`);
  return pem;
}

function startLine(emulator: RunningEmulator, options: EmulatorOptions): Record<string, unknown> {
  return {
    url: emulator.url,
    port: emulator.port,
    env: emulator.env,
    admin: { clientId: emulator.admin.clientId, clientSecret: emulator.admin.clientSecret },
    readOnly: { clientId: emulator.readOnly.clientId, clientSecret: emulator.readOnly.clientSecret },
    control: options.control === true ? `${emulator.url}/__emulator/` : null,
    fixtures: emulator.fixtures,
  };
}

function humanBanner(emulator: RunningEmulator, options: EmulatorOptions): string {
  const f = emulator.fixtures;
  const lines = [
    `svcadm emulator listening on ${emulator.url} (seed ${options.seed ?? 1})`,
    '',
    `  admin client       ${emulator.admin.clientId}  secret ${emulator.admin.clientSecret}  (every scope)`,
    `  read-only client   ${emulator.readOnly.clientId}  secret ${emulator.readOnly.clientSecret}  (read:* scopes)`,
    '',
    'Use it from another shell (or start it with --print-env to use it from this one):',
    ...Object.entries(emulator.env).map(([name, value]) => `  export ${name}=${shellWord(value)}`),
    '',
    'Try:',
    `  svcadm policies get ${f.policyIdByAction.redirect}`,
    `  svcadm users permissions ${shellWord(f.userId)} --all`,
    '  svcadm provisionings list',
    '  svcadm events tail --type user.created --max-events 5',
    `  svcadm connections delete-user ${f.databaseConnectionId} --email ${shellWord(f.databaseUserEmails[1] ?? '')} --yes`,
    '',
    `Bulk user: ${shellWord(f.bulkUserId)}   non-database connection: ${f.nonDatabaseConnectionId}`,
  ];
  if (options.control === true) lines.push(`Control API: ${emulator.url}/__emulator/`);
  return `${lines.join('\n')}\n`;
}
