import * as z from 'zod';
import { timestampOf } from '../../api/timestamp.js';
import { parseEventTypes } from '../../arguments/event-types.js';
import { parseSince } from '../../arguments/since.js';
import { CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import { EVENT_TYPES } from '../../domain/event-types.js';
import { UsageError } from '../../errors.js';
import { READ_EVENTS_DEFAULT, READ_EVENTS_MAX, readEvents, WAIT_DEFAULT_S, WAIT_MAX_S } from '../read-events.js';
import { count, defineTool, READS, serviceObject, type ToolSpec } from '../tool.js';

/** `read_events`: a bounded slice of the event stream, and where to read on (`read-events.ts`). */
export const READ_EVENTS: ToolSpec = defineTool({
  name: 'read_events',
  title: 'Read tenant events',
  description: `Reads up to max_events events of the tenant's event stream (default ${READ_EVENTS_DEFAULT}, at most ${READ_EVENTS_MAX}), of the given types, after a cursor or since a time, waiting at most wait_seconds (default ${WAIT_DEFAULT_S}) for new ones. Returns the events and next_cursor: pass it as cursor to read on from there, with nothing missed or repeated. Without cursor or since it starts at the newest event. Needs the scope read:events.`,
  writes: false,
  // Read-only, but not idempotent: new events arrive between two calls.
  annotations: { ...READS, idempotentHint: false },
  input: z.strictObject({
    types: z
      .array(z.enum(EVENT_TYPES))
      .max(EVENT_TYPES.length)
      .optional()
      .describe('only these event types; omit for every type'),
    cursor: z.string().max(1024).optional().describe('resume after this cursor (the next_cursor of a previous call)'),
    since: z
      .string()
      .max(64)
      .optional()
      .describe('start at an RFC 3339 time (2024-05-01T12:00:00Z) or a duration back from now (30s, 15m, 2h, 7d)'),
    max_events: z.number().int().min(1).max(READ_EVENTS_MAX).optional().describe('most events to return'),
    wait_seconds: z
      .number()
      .min(0)
      .max(WAIT_MAX_S)
      .optional()
      .describe(`how long to wait for events, at most ${WAIT_MAX_S}`),
  }),
  output: z.object({
    events: z.array(serviceObject).describe('each event as the stream sent it, `type` first'),
    next_cursor: z
      .string()
      .nullable()
      .describe('pass it as cursor to read on; null when the service has given no position yet (see next_since)'),
    next_since: z
      .string()
      .nullable()
      .describe('when next_cursor is null: pass it as since to read on from where this call began, missing nothing'),
    full: z.boolean().describe('true when max_events or the size bound stopped the read: more may be waiting'),
    skipped: z
      .array(
        z.object({
          id: z.unknown(),
          type: z.unknown(),
          offset: z.string().nullable(),
          bytes: z.number().int(),
        }),
      )
      .describe('events too large for any result, passed over: their id, type, offset and size'),
  }),
  async run(input, env) {
    if (input.cursor !== undefined && input.since !== undefined) {
      throw new UsageError('cursor and since cannot be combined', 'cursor resumes at a position, since at a time');
    }
    if (input.cursor !== undefined && !isCursor(input.cursor)) {
      throw new UsageError(`cursor must be a cursor: ${CURSOR_RULE}`);
    }
    const request = {
      types: parseEventTypes(input.types ?? []),
      cursor: input.cursor,
      since: input.since === undefined ? undefined : parseSince(input.since, env.clock.now(), 'since'),
      maxEvents: input.max_events ?? READ_EVENTS_DEFAULT,
      waitMs: (input.wait_seconds ?? WAIT_DEFAULT_S) * 1000,
    };
    const read = await env.stream(request.waitMs, (leftMs) => readEvents({ ...request, waitMs: leftMs }, env));
    const held = read === 'busy';
    const result = held
      ? {
          events: [],
          next_cursor: request.cursor ?? null,
          next_since: request.cursor === undefined ? (request.since ?? timestampOf(env.clock.now())) : null,
          full: false,
          skipped: [],
        }
      : read;
    const parts = [count(result.events.length, { one: 'event', many: 'events' })];
    if (held) parts.push('the event stream was held by another read_events call for the whole wait');
    if (result.skipped.length > 0) {
      parts.push(
        `${count(result.skipped.length, { one: 'event', many: 'events' })} too large to return skipped (see skipped)`,
      );
    }
    if (result.full) parts.push('more are waiting');
    parts.push(
      result.next_cursor !== null
        ? 'continue with next_cursor'
        : 'no cursor yet: continue with since set to next_since',
    );
    return { data: { ...result }, text: `${parts.join('; ')}.` };
  },
});
