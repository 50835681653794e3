import type { Invocation } from '../../cli/host.js';
import { isLoopbackHost } from '../../config/tenant.js';
import { parsePublicKey } from '../../emulator/client-assertion.js';
import { ENV_SHELLS, type EnvShell, envLines, isEnvShell, readOnlyVariables } from '../../emulator/env-lines.js';
import type { EmulatorOptions } from '../../emulator/options.js';
import type { BackgroundEmulator, RunningEmulator } from '../../emulator/server.js';
import { CliError, interruption, UsageError } from '../../errors.js';
import { shellWord } from '../../util/shell-word.js';
import type { EmulatorCommand, FaultOptions, ResetOptions, TriggerOptions } from './options.js';
import { control, emulatorOfTenant } from './tools.js';

export async function runEmulatorCommand(inv: Invocation, { flags, options }: EmulatorCommand): Promise<void> {
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
  const { startInBackground, BackgroundStartError } = await import('../../emulator/server.js');
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
  const vars = { ...emulator.env, ...readOnlyVariables(emulator.readOnly), SVCADM_EMULATOR_PID: String(emulator.pid) };
  await io.write(envLines(shell, vars));
  warnAboutSecrets(inv, options);
  const pid = shell === 'fish' ? '$SVCADM_EMULATOR_PID' : '"$SVCADM_EMULATOR_PID"';
  io.notice(
    `svcadm emulator: running in the background at ${emulator.url} (process ${emulator.pid}); stop it with: kill ${pid}`,
  );
}

/** Starts the emulator, prints how to use it, and serves until Ctrl-C or SIGTERM. */
export async function runEmulator(inv: Invocation, options: EmulatorOptions, logRequests: boolean): Promise<void> {
  // Loaded here so that no other command pays for the emulator's modules.
  const { startEmulator } = await import('../../emulator/server.js');
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
    pem = await process.getBuiltinModule('node:fs/promises').readFile(path, 'utf8');
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
  if (options.control === true) {
    lines.push(
      `Control API: ${emulator.url}/__emulator/ (svcadm emulator --help lists it); from a shell using this emulator:`,
      '  svcadm emulator trigger user.created --count 3',
      '  svcadm emulator fault /rate-limit-policies --status 503',
      '  svcadm emulator reset',
    );
  }
  return `${lines.join('\n')}\n`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `emulator trigger`: `POST /__emulator/events`; prints what was emitted and how to see it. */
export async function runEmulatorTrigger(inv: Invocation, opts: TriggerOptions): Promise<void> {
  const target = emulatorOfTenant(inv);
  const answer = await control(inv, target, 'POST', '/events', { type: opts.type, count: opts.count }, (body) =>
    isRecord(body) &&
    typeof body.before === 'string' &&
    Array.isArray(body.offsets) &&
    body.offsets.length === opts.count &&
    body.offsets.every((o) => typeof o === 'string')
      ? { before: body.before, offsets: body.offsets as string[] }
      : undefined,
  );
  const events = `${opts.count} ${opts.type} ${opts.count === 1 ? 'event' : 'events'}`;
  const see = inv.paste(['events', 'tail', '--from', answer.before, '--max-events', String(opts.count)]);
  await inv.out.result(
    { emulator: target.origin, type: opts.type, count: opts.count, before: answer.before, offsets: answer.offsets },
    { text: `Emitted ${events} at the emulator ${target.origin}.\n`, notices: [`See them: ${see}`] },
  );
}

/** `emulator fault`: `POST /__emulator/faults`; prints the fault as queued. */
export async function runEmulatorFault(inv: Invocation, opts: FaultOptions): Promise<void> {
  const target = emulatorOfTenant(inv);
  const fault = await control(inv, target, 'POST', '/faults', { ...opts, kind: 'status' }, (body) =>
    isRecord(body) && isRecord(body.fault) && typeof body.fault.id === 'number' ? body.fault : undefined,
  );
  const requests = opts.count === 1 ? 'the next request' : `the next ${opts.count} requests`;
  const retry = opts.retryAfter === undefined ? '' : ` with Retry-After: ${opts.retryAfter}`;
  await inv.out.result(
    { emulator: target.origin, fault },
    {
      text: `Fault ${fault.id}: ${requests} under ${opts.path} will answer ${opts.status}${retry} (emulator ${target.origin}).\n`,
      notices: [`Clear it: ${inv.paste(['emulator', 'reset', '--faults'])}`],
    },
  );
}

/** `emulator reset`: `POST /__emulator/reset` (everything back to the seed) or `DELETE /__emulator/faults`. */
export async function runEmulatorReset(inv: Invocation, opts: ResetOptions): Promise<void> {
  const target = emulatorOfTenant(inv);
  if (opts.faultsOnly) {
    await control(inv, target, 'DELETE', '/faults', undefined, (body) =>
      isRecord(body) && body.cleared === true ? true : undefined,
    );
    await inv.out.result(
      { emulator: target.origin, cleared: 'faults' },
      { text: `Cleared the queued faults of the emulator ${target.origin}.\n` },
    );
    return;
  }
  await control(inv, target, 'POST', '/reset', undefined, (body) =>
    isRecord(body) && body.reset === true ? true : undefined,
  );
  await inv.out.result(
    { emulator: target.origin, reset: true },
    {
      text: `The emulator ${target.origin} is back to its seed: data, faults, settings, request log, client keys.\n`,
    },
  );
}
