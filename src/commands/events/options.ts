import { timestampOf } from '../../api/timestamp.js';
import type { Env } from '../../context.js';
import { CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import { type EventType, isEventType, suggestEventTypes } from '../../domain/event-types.js';
import { UsageError } from '../../errors.js';
import { type Forwarding, parseForwarding, type RawForwardingOptions } from '../../events/forward/options.js';
import { neutralize } from '../../text/sanitize.js';
import { parseDuration, parseIntegerOption } from '../../util/duration.js';

export interface RawTailOptions extends RawForwardingOptions {
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
  /** `--forward-to` and its options: where each event is delivered before it counts as seen. */
  forward: Forwarding | undefined;
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

/**
 * `--since`: an RFC 3339 time or a duration back from now, as the exact `YYYY-MM-DDTHH:MM:SSZ` the service takes.
 * `name`: how the caller calls it (the option, or the MCP tool's argument).
 */
export function parseSince(text: string, now: number, name = '--since'): string {
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
    if (!valid) throw new UsageError(`invalid ${name} '${neutralize(text)}': not a real date and time`);
  } else if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(value)) {
    ms = now - parseDuration(value, name);
  } else {
    throw new UsageError(
      `invalid ${name} '${neutralize(text)}'`,
      'give an RFC 3339 time (2024-05-01T12:00:00Z) or a duration back from now (30s, 15m, 2h, 7d)',
    );
  }
  if (ms > now + FUTURE_SLACK_MS) throw new UsageError(`${name} '${neutralize(text)}' is in the future`);
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
    forward: parseForwarding(raw, env),
  };
}

export interface RawReplayOptions extends RawForwardingOptions {
  type?: string[];
  strict?: boolean;
  fromLine?: string;
}

export interface ReplayOptions {
  /** The recorded NDJSON file. */
  file: string;
  types: EventType[];
  /** A malformed line stops the replay (else it is reported and skipped). */
  strict: boolean;
  /** The first line to replay (1-based). */
  fromLine: number;
  forward: Forwarding | undefined;
}

export function parseReplayOptions(file: string, raw: RawReplayOptions, env: Env = {}): ReplayOptions {
  if (file === '')
    throw new UsageError('events replay needs a file: the output of -o ndjson, --output-file or --dead-letter');
  return {
    file,
    types: parseEventTypes(raw.type ?? []),
    strict: raw.strict === true,
    fromLine: raw.fromLine === undefined ? 1 : parseIntegerOption(raw.fromLine, '--from-line', 1),
    forward: parseForwarding(raw, env),
  };
}
