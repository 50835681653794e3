import { timestampOf } from '../api/timestamp.js';
import { examples, option, type SvcadmCommand } from '../cli/command.js';
import type { Host } from '../cli/host.js';
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';
import {
  FORWARD_SECRET_ENV,
  type ForwardTarget,
  parseForwardTarget,
  type RawForwardOptions,
} from '../forward/target.js';
import { TENANT_ENVIRONMENT } from '../help/environment.js';
import { CURSOR_RULE, isCursor } from '../spec/cursor.js';
import { EVENT_TYPES, type EventType, isEventType, suggestEventTypes } from '../spec/event-types.js';
import { neutralize } from '../text/sanitize.js';
import { parseDuration, parseIntegerOption } from '../util/duration.js';

export interface RawTailOptions extends RawForwardOptions {
  type?: string[];
  from?: string;
  since?: string;
  maxEvents?: string;
  duration?: string;
  cursorFile?: string;
  maxReconnects?: string;
  outputFile?: string;
}

export interface TailOptions {
  types: EventType[];
  from: string | undefined;
  /** `--since` resolved to `YYYY-MM-DDTHH:MM:SSZ`. */
  fromTimestamp: string | undefined;
  maxEvents: number | undefined;
  durationMs: number | undefined;
  cursorFile: string | undefined;
  maxReconnects: number | undefined;
  /** `--output-file`: where each event's NDJSON line is appended as it is shown. */
  outputFile: string | undefined;
  /** `--forward-to`: where each event is delivered before it counts as seen. */
  forward: ForwardTarget | undefined;
}

/** `--type` values: repeatable, comma lists, each one of the 25 types (else the nearest is suggested). */
export function parseEventTypes(values: readonly string[]): EventType[] {
  const types: EventType[] = [];
  for (const value of values.flatMap((v) => v.split(','))) {
    const name = value.trim();
    if (name === '') continue;
    if (!isEventType(name)) {
      const suggestion = suggestEventTypes(name);
      throw new UsageError(
        `unknown event type '${neutralize(name)}'${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
        "run 'svcadm events tail --help' for the 25 event types",
      );
    }
    if (!types.includes(name)) types.push(name);
  }
  return types;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const FUTURE_SLACK_MS = 60_000;

/** `--since`: an RFC 3339 time or a duration back from now, as the exact `YYYY-MM-DDTHH:MM:SSZ` the service takes. */
export function parseSince(text: string, now: number): string {
  const value = text.trim();
  let ms: number;
  const match = RFC3339.exec(value);
  if (match) {
    const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
    ms = Date.parse(value.replace(' ', 'T').toUpperCase());
    const check = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
    const valid =
      !Number.isNaN(ms) &&
      check.getUTCMonth() === mo - 1 &&
      check.getUTCDate() === d &&
      h < 24 &&
      mi < 60 &&
      s < 60 &&
      y >= 1970;
    if (!valid) throw new UsageError(`invalid --since '${neutralize(text)}': not a real date and time`);
  } else if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(value)) {
    ms = now - parseDuration(value, '--since');
  } else {
    throw new UsageError(
      `invalid --since '${neutralize(text)}'`,
      'give an RFC 3339 time (2024-05-01T12:00:00Z) or a duration back from now (30s, 15m, 2h, 7d)',
    );
  }
  if (ms > now + FUTURE_SLACK_MS) throw new UsageError(`--since '${neutralize(text)}' is in the future`);
  return timestampOf(ms);
}

export function parseTailOptions(raw: RawTailOptions, now: number, env: Env = {}): TailOptions {
  if (raw.from !== undefined && raw.since !== undefined) {
    throw new UsageError('--from and --since cannot be combined', '--from resumes at a cursor, --since at a time');
  }
  if (raw.from !== undefined && !isCursor(raw.from)) throw new UsageError(`--from must be a cursor: ${CURSOR_RULE}`);
  const durationMs = raw.duration === undefined ? undefined : parseDuration(raw.duration, '--duration');
  if (durationMs !== undefined && durationMs <= 0) throw new UsageError('--duration must be more than 0');
  if (raw.cursorFile === '') throw new UsageError('--cursor-file needs a path');
  if (raw.outputFile === '') throw new UsageError('--output-file needs a path');
  return {
    types: parseEventTypes(raw.type ?? []),
    from: raw.from,
    fromTimestamp: raw.since === undefined ? undefined : parseSince(raw.since, now),
    maxEvents: raw.maxEvents === undefined ? undefined : parseIntegerOption(raw.maxEvents, '--max-events', 1),
    durationMs,
    cursorFile: raw.cursorFile,
    outputFile: raw.outputFile,
    maxReconnects:
      raw.maxReconnects === undefined ? undefined : parseIntegerOption(raw.maxReconnects, '--max-reconnects', 0),
    forward: parseForwardTarget(raw, env),
  };
}

/** One line: help output wraps it to the terminal. */
function typeList(): string {
  return `  ${EVENT_TYPES.join(' ')}`;
}

export function registerEventsCommands(program: SvcadmCommand, host: Host): void {
  const events = program.command('events').description('the tenant event stream');
  events
    .command('tail')
    .description('follow the event stream (GET /events, Server-Sent Events)')
    .streaming()
    .addOption(
      option('--type <type>', 'only these event types (repeatable, or a comma list)')
        .repeated()
        .completes({ kind: 'list', values: EVENT_TYPES }),
    )
    .option('--from <cursor>', 'resume after this cursor (an offset from a previous run)')
    .option('--since <time>', 'start at an RFC 3339 time or a duration back from now (30s, 15m, 2h, 7d)')
    .option('--max-events <n>', 'stop after n events')
    .option('--duration <d>', 'stop after this long (e.g. 30s, 5m)')
    .addOption(
      option(
        '--cursor-file <path>',
        'start from the cursor saved here (--from and --since win); move it only past lines written without error',
      ).completes({ kind: 'file' }),
    )
    .addOption(
      option('--output-file <path>', "also append each event's NDJSON line to this file as it is shown").completes({
        kind: 'file',
      }),
    )
    .option('--max-reconnects <n>', 'give up after n reconnects in a row without progress (default: never)')
    .option('--forward-to <url>', 'POST each event to this app (https, or http on loopback); 2xx acknowledges it')
    .addOption(
      option(
        '--forward-secret <secret>',
        'sign forwarded events with this secret (default: a new one, printed)',
      ).environmentVariable(FORWARD_SECRET_ENV),
    )
    .environment([
      ...TENANT_ENVIRONMENT,
      { names: [FORWARD_SECRET_ENV], description: 'stands in for --forward-secret (the command line leaks)' },
    ])
    .addHelpText('after', `\nEvent types:\n${typeList()}`)
    .addHelpText(
      'after',
      '\nExit: 0 when --duration or --max-events ends a working stream; 7 when it ends while the stream is down (it ' +
        'never connected, or a reconnect failed since the last drop), with since when and the line to resume with. ' +
        'The service rotating a stream (connection_timeout) is followed silently. 130/143/129 on SIGINT/SIGTERM/SIGHUP.',
    )
    .addHelpText(
      'after',
      examples(
        'svcadm events tail',
        'svcadm events tail --type user.created,user.deleted --since 15m',
        'svcadm events tail --cursor-file .svcadm-cursor --duration 5m -o ndjson | jq -c .',
        'svcadm events tail --forward-to http://localhost:3000/webhooks --cursor-file .svcadm-cursor',
      ),
    )
    .action(
      host.action<[], RawTailOptions>(async (inv, _args, raw) => {
        const opts = parseTailOptions(raw, inv.ctx.clock.now(), inv.ctx.env);
        // The tail's code (the stream, the forwarder, the cursor file) is a chunk of its own, loaded when it runs.
        const { runEventsTail } = await import('./runs.js');
        return runEventsTail(inv, opts);
      }),
    );
}
