import { NetworkError } from '../errors.js';
import { typeFilter } from '../events/pipeline/filters.js';
import { resumeSince } from '../events/stream/resume-point.js';
import { StreamEvent, subscribeEvents } from '../events/stream/subscription.js';
import { clean, DATA_BUDGET, type Json, jsonBytes } from './results.js';
import type { ToolEnv } from './tool.js';

export const READ_EVENTS_DEFAULT = 100;
export const READ_EVENTS_MAX = 1000;
export const WAIT_DEFAULT_S = 5;
export const WAIT_MAX_S = 30;
/** Once events have come, this long without more means the backlog is read: answer now rather than at the deadline. */
const QUIET_MS = 500;
/** Reconnects in a row without progress before a call gives up (a tail never does; a call has seconds). */
const MAX_RECONNECTS = 2;
/** Room kept for the rest of the result (cursor, skipped, the text). */
const ENVELOPE_ROOM = 8 * 1024;

export interface ReadEventsRequest {
  types: readonly string[];
  cursor: string | undefined;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  since: string | undefined;
  maxEvents: number;
  waitMs: number;
}

/** An event too large for any result: named, so that the agent knows what it did not see, and passed. */
export interface SkippedEvent {
  id: Json;
  type: Json;
  offset: string | null;
  bytes: number;
}

export interface EventsRead {
  events: Json[];
  /** Where the next call resumes: the position after the last event returned (or skipped by the type filter). */
  next_cursor: string | null;
  /** When no cursor is known yet (a quiet tenant): the time to pass as `since`, so that the next call misses nothing. */
  next_since: string | null;
  /** True when the call stopped because the result was full, not because the wait ended. */
  full: boolean;
  skipped: SkippedEvent[];
}

/**
 * Up to `maxEvents` events from the subscription of `events tail`, for at most `waitMs` (on the clock): a stream does
 * not fit one tool call, so a call reads a bounded slice and says where the next one resumes. It always makes
 * progress: an event too large for a result is skipped and named (id, offset), never left in front of the cursor.
 */
export async function readEvents(req: ReadEventsRequest, env: ToolEnv): Promise<EventsRead> {
  const budget = DATA_BUDGET - ENVELOPE_ROOM;
  // Before connecting: a quiet call's position, when the service gives no cursor (events after it are not missed),
  // by the tail's own rule (resume-point.ts).
  const startedAt = env.clock.now();
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, env.signal]);
  const deadline = env.clock.setTimeout(() => stop.abort(), req.waitMs);
  let quiet: ReturnType<ToolEnv['clock']['setTimeout']> | undefined;
  const accepts = typeFilter(req.types, (event: StreamEvent) => event.type);
  const events: Json[] = [];
  const skipped: SkippedEvent[] = [];
  let bytes = 0;
  let cursor = req.cursor;
  let full = false;
  let connected = false;
  let problem: string | undefined;
  try {
    const batches = subscribeEvents({
      api: env.api(),
      types: req.types,
      from: req.cursor,
      fromTimestamp: req.since,
      maxReconnects: MAX_RECONNECTS,
      signal,
      clock: env.clock,
      random: env.random,
    });
    for await (const batch of batches) {
      for (const item of batch) {
        if (item instanceof StreamEvent) {
          // The tail's own filter stage: an event of another type moves the position only.
          if (accepts && !accepts(item)) {
            if (item.offset !== undefined) cursor = item.offset;
            continue;
          }
          const event = clean(item.payload(), env.secrets);
          const size = jsonBytes(event) + 1;
          if (size > budget) {
            skipped.push(skippedEvent(event, item.offset, size));
          } else if (events.length >= req.maxEvents || bytes + size > budget) {
            full = true;
            break;
          } else {
            events.push(event);
            bytes += size;
          }
          if (item.offset !== undefined) cursor = item.offset;
        } else if (item.kind === 'cursor') {
          cursor = item.offset;
        } else if (item.kind === 'connected') {
          connected = true;
        } else if (item.kind === 'reconnecting') {
          problem = item.reason;
        }
      }
      if (full || events.length >= req.maxEvents) {
        full = true;
        break;
      }
      if (events.length > 0 || skipped.length > 0) {
        quiet?.cancel();
        quiet = env.clock.setTimeout(() => stop.abort(), QUIET_MS);
      }
    }
  } finally {
    deadline.cancel();
    quiet?.cancel();
  }
  if (!connected && problem !== undefined) throw new NetworkError(problem);
  return {
    events,
    next_cursor: cursor ?? null,
    next_since: cursor === undefined ? resumeSince(req.since, startedAt) : null,
    full,
    skipped,
  };
}

function skippedEvent(event: Json, offset: string | undefined, bytes: number): SkippedEvent {
  const payload = isObject(event) ? event : {};
  const envelope = isObject(payload.event) ? payload.event : {};
  return { id: envelope.id ?? null, type: payload.type ?? null, offset: offset ?? null, bytes };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
