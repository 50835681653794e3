import { CURSOR_RULE, isCursor } from '../api/cursor.js';
import { EVENT_TYPES, type EventType, isEventType, suggestEventTypes } from '../api/event-types.js';
import { type StreamEvent, subscribeEvents, type TailItem } from '../api/events.js';
import { examples, option, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import type { Clock } from '../clock.js';
import { CursorFileWriter, readCursorFile } from '../config/cursor-file.js';
import { interruption, UsageError } from '../errors.js';
import type { LineSink, StreamFormats } from '../io/printer.js';
import { formatEventLine } from '../render/event-line.js';
import { neutralize } from '../render/sanitize.js';
import type { TailStatus } from '../render/tail-view.js';
import { parseDuration, parseIntegerOption } from '../util/duration.js';
import { keepYoungGenerationSmall } from '../util/young-generation.js';

export interface RawTailOptions {
  type?: string[];
  from?: string;
  since?: string;
  maxEvents?: string;
  duration?: string;
  cursorFile?: string;
  maxReconnects?: string;
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
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

export function parseTailOptions(raw: RawTailOptions, now: number): TailOptions {
  if (raw.from !== undefined && raw.since !== undefined) {
    throw new UsageError('--from and --since cannot be combined', '--from resumes at a cursor, --since at a time');
  }
  if (raw.from !== undefined && !isCursor(raw.from)) throw new UsageError(`--from must be a cursor: ${CURSOR_RULE}`);
  const durationMs = raw.duration === undefined ? undefined : parseDuration(raw.duration, '--duration');
  if (durationMs !== undefined && durationMs <= 0) throw new UsageError('--duration must be more than 0');
  if (raw.cursorFile === '') throw new UsageError('--cursor-file needs a path');
  return {
    types: parseEventTypes(raw.type ?? []),
    from: raw.from,
    fromTimestamp: raw.since === undefined ? undefined : parseSince(raw.since, now),
    maxEvents: raw.maxEvents === undefined ? undefined : parseIntegerOption(raw.maxEvents, '--max-events', 1),
    durationMs,
    cursorFile: raw.cursorFile,
    maxReconnects:
      raw.maxReconnects === undefined ? undefined : parseIntegerOption(raw.maxReconnects, '--max-reconnects', 0),
  };
}

function typeList(): string {
  const lines: string[] = [];
  let line = ' ';
  for (const type of EVENT_TYPES) {
    if (line.length + type.length > 78) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${type}`;
  }
  return [...lines, line].join('\n');
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerEventsCommands(program: SvcadmCommand, host: Host): void {
  const events = program.command('events').description('the tenant event stream');
  events
    .command('tail')
    .description('follow the event stream (GET /events, Server-Sent Events)')
    .addOption(
      option('--type <type>', 'only these event types (repeatable, or a comma list)')
        .argParser(collect)
        .completes({ kind: 'list', values: EVENT_TYPES }),
    )
    .option('--from <cursor>', 'resume after this cursor (an offset from a previous run)')
    .option('--since <time>', 'start at an RFC 3339 time or a duration back from now (30s, 15m, 2h, 7d)')
    .option('--max-events <n>', 'stop after n events')
    .option('--duration <d>', 'stop after this long (e.g. 30s, 5m)')
    .addOption(
      option(
        '--cursor-file <path>',
        'start from the cursor saved here; keep it current as the stream advances',
      ).completes({ kind: 'file' }),
    )
    .option('--max-reconnects <n>', 'give up after n reconnects in a row without progress (default: never)')
    .addHelpText('after', `\nEvent types:\n${typeList()}`)
    .addHelpText(
      'after',
      examples(
        'svcadm events tail',
        'svcadm events tail --type user.created,user.deleted --since 15m',
        'svcadm events tail --cursor-file .svcadm-cursor --duration 5m -o ndjson | jq -c .',
      ),
    )
    .action(
      host.action<[], RawTailOptions>((inv, _args, raw) =>
        runEventsTail(inv, parseTailOptions(raw, inv.ctx.clock.now())),
      ),
    );
}

/** How an event is printed: its payload as NDJSON, one line of text, or the live view. */
function eventFormats(clock: Clock): StreamFormats<StreamEvent, TailStatus> {
  return {
    json: (item) => item.line,
    line: (item, color, width) => formatEventLine(item.payload(), color, width),
    live: async (io, initial, color) => {
      const { tailScreenSink } = await import('../io/tail-screen.js');
      return tailScreenSink(io, initial, color, clock);
    },
  };
}

const RATE_WINDOW_MS = 5000;

/** Runs the tail until it is stopped; a stop by a signal ends with the count and how to resume. */
export async function runEventsTail(inv: Invocation, opts: TailOptions): Promise<void> {
  const { ctx } = inv;
  const { clock } = ctx;
  keepYoungGenerationSmall();
  const started = clock.now();
  const start =
    opts.from ?? (opts.fromTimestamp === undefined && opts.cursorFile ? readCursorFile(opts.cursorFile) : undefined);
  const cursorFile = opts.cursorFile ? new CursorFileWriter(opts.cursorFile, clock) : undefined;
  cursorFile?.check();
  const api = inv.services.api();
  const status: TailStatus = { state: 'connecting', attempt: 0, types: opts.types, seen: 0, rate: 0, cursor: start };
  const samples: Array<[number, number]> = [[started, 0]];
  const stop = new AbortController();
  const timer = opts.durationMs === undefined ? undefined : clock.setTimeout(() => stop.abort(), opts.durationMs);
  const signal = AbortSignal.any([ctx.interrupt, stop.signal]);
  const { sink, lines } = await inv.out.stream(eventFormats(clock), status);
  const refresh = () => {
    const now = clock.now();
    samples.push([now, status.seen]);
    while (samples.length > 2 && (samples[0]?.[0] ?? now) < now - RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    status.rate = now > t0 ? ((status.seen - n0) * 1000) / (now - t0) : 0;
    sink.status?.({ ...status });
  };
  const ticker = sink.status ? clock.setInterval(refresh, 1000) : undefined;
  let cursor = start;
  let seen = 0;
  try {
    const subscription = subscribeEvents({
      api,
      types: opts.types,
      from: start,
      fromTimestamp: opts.fromTimestamp,
      maxReconnects: opts.maxReconnects,
      signal,
      clock,
      random: ctx.random,
    });
    for await (const batch of subscription) {
      const events: StreamEvent[] = [];
      let full = false;
      const before = cursor;
      for (const item of batch) {
        if (item.kind === 'event') {
          events.push(item);
          seen++;
          if (item.offset !== undefined) cursor = item.offset;
          if (opts.maxEvents !== undefined && seen >= opts.maxEvents) {
            full = true;
            break;
          }
        } else if (item.kind === 'cursor') cursor = item.offset;
        else report(item, sink, status);
      }
      if (events.length > 0) await sink.write(lines(events));
      status.seen = seen;
      status.cursor = cursor;
      if (cursor !== undefined && cursor !== before) cursorFile?.update(cursor);
      if (sink.status && batch.some((i) => i.kind !== 'event' && i.kind !== 'cursor')) refresh();
      if (full) break;
    }
  } finally {
    timer?.cancel();
    ticker?.cancel();
    if (sink.status) refresh();
    sink.close();
    await cursorFile?.flush();
  }
  if (!ctx.interrupt.aborted) return;
  const count = `${seen} ${seen === 1 ? 'event' : 'events'}`;
  const filters = opts.types.length > 0 ? ` --type ${opts.types.join(',')}` : '';
  inv.io.stderr.write(`svcadm: interrupted after ${count}\n`);
  const resume =
    cursor !== undefined
      ? `--from ${cursor}`
      : `--since ${opts.fromTimestamp ?? `${new Date(Math.floor(started / 1000) * 1000).toISOString().slice(0, 19)}Z`}`;
  inv.io.stderr.write(`resume with: svcadm events tail ${resume}${filters}\n`);
  throw interruption(ctx.interrupt, true);
}

function report(
  item: Exclude<TailItem, StreamEvent | { kind: 'cursor' }>,
  sink: LineSink<TailStatus>,
  status: TailStatus,
): void {
  switch (item.kind) {
    case 'connected':
      status.state = 'connected';
      status.attempt = 0;
      status.waitMs = undefined;
      return;
    case 'reconnecting':
      status.state = 'reconnecting';
      status.attempt = item.attempt;
      status.waitMs = item.waitMs;
      status.reason = item.reason;
      if (!sink.status) {
        sink.notice(
          `svcadm: ${neutralize(item.reason)}; reconnecting in ${(item.waitMs / 1000).toFixed(1)}s (attempt ${item.attempt})`,
        );
      }
      return;
    case 'stream-error':
      if (!item.fatal) {
        sink.notice(
          `svcadm: the service reported a stream error (${neutralize(item.code)}): ${neutralize(item.message)}`,
          true,
        );
      }
      return;
    case 'warning':
      sink.notice(`svcadm: warning: ${neutralize(item.message)}`, true);
      return;
  }
}
