import { parseEventTypes } from '../../arguments/event-types.js';
import { parseSince } from '../../arguments/since.js';
import type { Env } from '../../context.js';
import { CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import type { EventType } from '../../domain/event-types.js';
import { UsageError } from '../../errors.js';
import { type Forwarding, parseForwarding, type RawForwardingOptions } from '../../events/forward/options.js';
import { parseDuration, parseIntegerOption } from '../../util/duration.js';

// The MCP tools share these two (src/arguments/); re-exported for the code that reads them from here.
export { parseEventTypes, parseSince };

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
