import { StreamEvent, subscribeEvents } from '../api/events.js';
import { NetworkError } from '../errors.js';
import { clean, type Json, jsonBytes, MAX_RESULT_BYTES } from './results.js';
import type { ToolEnv } from './tool.js';

export const READ_EVENTS_DEFAULT = 100;
export const READ_EVENTS_MAX = 1000;
export const WAIT_DEFAULT_S = 5;
export const WAIT_MAX_S = 30;
/** Once events have come, this long without more means the backlog is read: answer now rather than at the deadline. */
const QUIET_MS = 500;
/** Reconnects in a row without progress before a call gives up (a tail never does; a call has seconds). */
const MAX_RECONNECTS = 2;
const ENVELOPE_ROOM = 8 * 1024;

export interface ReadEventsRequest {
  types: readonly string[];
  cursor: string | undefined;
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  since: string | undefined;
  maxEvents: number;
  waitMs: number;
}

export interface EventsRead {
  events: Json[];
  /** Where the next call resumes: the position after the last event returned (or skipped by the type filter). */
  next_cursor: string | null;
  /** True when the call stopped because the result was full, not because the wait ended. */
  full: boolean;
}

/**
 * Up to `maxEvents` events from the subscription of `events tail`, for at most `waitMs` (on the clock): a stream does
 * not fit one tool call, so a call reads a bounded slice and says where the next one resumes.
 */
export async function readEvents(req: ReadEventsRequest, env: ToolEnv): Promise<EventsRead> {
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, env.signal]);
  const deadline = env.clock.setTimeout(() => stop.abort(), req.waitMs);
  let quiet: ReturnType<ToolEnv['clock']['setTimeout']> | undefined;
  const events: Json[] = [];
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
          const event = clean(item.payload(), env.secrets);
          const size = jsonBytes(event) + 1;
          if (events.length >= req.maxEvents || bytes + size > MAX_RESULT_BYTES - ENVELOPE_ROOM) {
            full = true;
            break;
          }
          events.push(event);
          bytes += size;
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
      if (events.length > 0) {
        quiet?.cancel();
        quiet = env.clock.setTimeout(() => stop.abort(), QUIET_MS);
      }
    }
  } finally {
    deadline.cancel();
    quiet?.cancel();
  }
  if (!connected && problem !== undefined) throw new NetworkError(problem);
  return { events, next_cursor: cursor ?? null, full };
}
