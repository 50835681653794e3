import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import type { EmulatorOptions, RunningEmulator } from '../emulator/server.js';
import { UsageError } from '../errors.js';
import { parseDuration, parseIntegerOption } from '../util/duration.js';
import { shellWord } from '../util/shell-word.js';

/** The port `svcadm emulator` listens on unless told otherwise (0 picks a free one). */
export const DEFAULT_EMULATOR_PORT = 4010;

/** The options exactly as commander hands them over (strings; booleans for flags). */
export interface EmulatorFlags {
  port?: string;
  host?: string;
  seed?: string;
  users?: string;
  permissions?: string;
  provisionings?: string;
  events?: string;
  eventRate?: string;
  latency?: string;
  rateLimit?: string;
  failRate?: string;
  dropStreamsAfter?: string;
  streamLifetime?: string;
  maxStreams?: string;
  heartbeat?: string;
  control?: boolean;
  logRequests?: boolean;
}

function numberOption(text: string, option: string, min: number, max: number): number {
  const value = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${option} must be a number from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

/** A bare number is milliseconds here; `2s`, `500ms`, `5m` work too. */
function millisOption(text: string, option: string): number {
  if (/^\d+$/.test(text.trim())) return Number(text);
  return parseDuration(text, option);
}

/** argv strings -> typed emulator options; any bad value is a UsageError (exit 2). */
export function parseEmulatorFlags(flags: EmulatorFlags): EmulatorOptions {
  const o: EmulatorOptions = {
    host: flags.host ?? '127.0.0.1',
    port: flags.port === undefined ? DEFAULT_EMULATOR_PORT : parseIntegerOption(flags.port, '--port', 0, 65535),
  };
  if (o.host === '') throw new UsageError('--host must not be empty');
  if (flags.seed !== undefined) o.seed = parseIntegerOption(flags.seed, '--seed', 0, 2 ** 32 - 1);
  if (flags.users !== undefined) o.users = parseIntegerOption(flags.users, '--users', 1, 100_000);
  if (flags.permissions !== undefined) {
    o.permissions = parseIntegerOption(flags.permissions, '--permissions', 0, 1_000_000);
  }
  if (flags.provisionings !== undefined) {
    o.provisionings = parseIntegerOption(flags.provisionings, '--provisionings', 0, 1_000_000);
  }
  if (flags.events !== undefined) o.events = parseIntegerOption(flags.events, '--events', 25, 100_000_000);
  if (flags.eventRate !== undefined) o.eventRate = numberOption(flags.eventRate, '--event-rate', 0, 100_000);
  if (flags.latency !== undefined) o.latencyMs = millisOption(flags.latency, '--latency');
  if (flags.rateLimit !== undefined) o.rateLimit = numberOption(flags.rateLimit, '--rate-limit', 0, 1_000_000);
  if (flags.failRate !== undefined) o.failRate = numberOption(flags.failRate, '--fail-rate', 0, 1);
  if (flags.dropStreamsAfter !== undefined) {
    o.dropStreamsAfter = parseIntegerOption(flags.dropStreamsAfter, '--drop-streams-after', 0);
  }
  if (flags.streamLifetime !== undefined) o.streamLifetimeMs = millisOption(flags.streamLifetime, '--stream-lifetime');
  if (flags.maxStreams !== undefined) o.maxStreams = parseIntegerOption(flags.maxStreams, '--max-streams', 0, 10_000);
  if (flags.heartbeat !== undefined) o.heartbeatMs = millisOption(flags.heartbeat, '--heartbeat');
  if ((o.latencyMs ?? 0) > 600_000) throw new UsageError('--latency must be at most 10 minutes');
  if ((o.heartbeatMs ?? 0) > 3_600_000) throw new UsageError('--heartbeat must be at most 1 hour');
  o.control = flags.control === true;
  return o;
}

export function registerEmulatorCommand(program: SvcadmCommand, host: Host): void {
  program
    .command('emulator')
    .description('run a local tenant that speaks the interface (seeded data, fault injection)')
    .option('--port <n>', `port to listen on; 0 picks a free one (default ${DEFAULT_EMULATOR_PORT})`)
    .option('--host <addr>', 'address to bind (default 127.0.0.1)')
    .option('--seed <n>', 'seed of all generated data (default 1)')
    .option('--users <n>', 'ordinary users (default 50)')
    .option('--permissions <n>', 'permissions of the bulk user (default 1200)')
    .option('--provisionings <n>', 'directory provisioning configurations (default 260)')
    .option('--events <n>', 'events in the history, at least 25 (default 500)')
    .option('--event-rate <n>', 'live events per second; 0 = none (default 2)')
    .option('--latency <duration>', 'added to every response: 250 (ms), 1s, … (default 0)')
    .option('--rate-limit <n>', 'requests per second before 429; 0 = unlimited (default 100)')
    .option('--fail-rate <p>', 'share of interface requests answered 503, 0 to 1 (default 0)')
    .option('--drop-streams-after <n>', 'close each event stream after n events; 0 = never (default 0)')
    .option('--stream-lifetime <duration>', 'close each event stream after this long; 0 = never (default 5m)')
    .option('--max-streams <n>', 'concurrent event streams before 403 (default 4)')
    .option('--heartbeat <duration>', 'interval of stream heartbeats (default 15s)')
    .option('--control', 'enable the control API under /__emulator/ (fault injection for tests)')
    .option('--log-requests', 'print one line per request on stderr')
    .environment([])
    .addHelpText(
      'after',
      examples(
        'svcadm emulator',
        'eval "$(svcadm emulator --port 0 | grep ^export)"   # not interactive: see --json',
        'svcadm emulator --port 0 --json --control --rate-limit 5 --latency 200',
      ),
    )
    .action(
      host.action<[], EmulatorFlags>((inv, _args, flags) =>
        runEmulator(inv, parseEmulatorFlags(flags), flags.logRequests === true),
      ),
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
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(
        `port ${options.port} is already in use`,
        'pick another with --port, or --port 0 for a free one',
      );
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot bind to ${options.host}`);
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
  // A script reads the start line (-o json); a person gets the banner (the default, whatever the terminal).
  await inv.out.announce(startLine(emulator, options), humanBanner(emulator, options));
  io.notice('svcadm emulator: running; press Ctrl-C to stop');

  await new Promise<void>((resolve) => {
    if (ctx.interrupt.aborted) return resolve();
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  io.notice('svcadm emulator: stopped');
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
    'Use it from this shell:',
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
