import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildUrl } from '../../../src/api/client.js';
import type { StreamResponse } from '../../../src/api/http.js';
import { reconnectDelayMs } from '../../../src/api/retry.js';
import { refineError } from '../../../src/cli/hints.js';
import { parseEventTypes, parseSince } from '../../../src/commands/events/options.js';
import { EVENT_TYPES, suggestEventTypes } from '../../../src/domain/event-types.js';
import { exitCodeFor } from '../../../src/error-codes.js';
import { AuthError, CliError } from '../../../src/errors.js';
import { type EventsApi, subscribeEvents, type TailItem } from '../../../src/events/stream/subscription.js';
import { VirtualClock } from '../../helpers/clock.js';

describe('event types', () => {
  it('lists the 25 types of the spec', () => {
    expect(EVENT_TYPES).toHaveLength(25);
  });

  it.each([
    ['user.create', 'user.created'],
    ['organisation.created', 'organization.created'],
    ['group.member.add', 'group.member.added'],
    ['USER.DELETED', 'user.deleted'],
    ['user', 'user.created,user.deleted,user.updated'],
    ['user.*', 'user.created,user.deleted,user.updated'],
    ['group.member', 'group.member.added,group.member.deleted'],
    ['bogus.x', undefined],
    ['', undefined],
  ])('suggests %s → %s', (input, expected) => {
    expect(suggestEventTypes(input)).toBe(expected);
  });

  it('accepts repeated values and comma lists, without duplicates', () => {
    expect(parseEventTypes(['user.created, user.deleted', 'user.created', 'group.created,'])).toEqual([
      'user.created',
      'user.deleted',
      'group.created',
    ]);
  });
});

describe('--since', () => {
  const now = Date.parse('2024-05-10T12:00:00.750Z');
  it.each([
    ['30s', '2024-05-10T11:59:30Z'],
    ['15m', '2024-05-10T11:45:00Z'],
    ['2h', '2024-05-10T10:00:00Z'],
    ['7d', '2024-05-03T12:00:00Z'],
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00Z'],
    ['2024-05-01T12:00:00.999Z', '2024-05-01T12:00:00Z'],
    ['2024-05-01T14:30:00+02:30', '2024-05-01T12:00:00Z'],
    ['2024-05-01 12:00:00z', '2024-05-01T12:00:00Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseSince(input, now)).toBe(expected);
  });

  it.each(['yesterday', '2024-05-01', '2024-13-01T00:00:00Z', '2024-02-30T00:00:00Z', '1w', '2030-01-01T00:00:00Z'])(
    'rejects %s',
    (input) => {
      expect(() => parseSince(input, now)).toThrow(CliError);
    },
  );
});

describe('reconnect delay', () => {
  it('is never shorter than the server retry, grows, is capped, and has jitter', () => {
    expect(reconnectDelayMs(1, 2000, () => 0)).toBe(2000);
    expect(reconnectDelayMs(1, 2000, () => 0.999)).toBeLessThanOrEqual(2500);
    expect(reconnectDelayMs(3, 2000, () => 0)).toBe(8000);
    expect(reconnectDelayMs(20, 2000, () => 0)).toBe(30_000);
    expect(reconnectDelayMs(1, 60_000, () => 0)).toBe(60_000);
    expect(reconnectDelayMs(1, 10, () => 0, 3000)).toBe(3000);
  });
});

/** A fake interface: each open answers with the next scripted response. */
function fakeApi(
  script: Array<StreamResponse | string[]>,
): EventsApi & { calls: Array<{ url: URL; headers: Record<string, string> }> } {
  const calls: Array<{ url: URL; headers: Record<string, string> }> = [];
  return {
    calls,
    url: (segments, query) => buildUrl('https://tenant.example.com/api/v2', segments, query),
    async open(url, headers) {
      calls.push({ url, headers });
      const next = script.shift();
      if (next === undefined) throw new Error('no more scripted answers');
      if (!Array.isArray(next)) return next;
      const stream = new PassThrough();
      for (const chunk of next) stream.write(chunk);
      stream.end();
      return {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'text/event-stream' },
        stream: stream as unknown as IncomingMessage,
      };
    },
  };
}

async function collect(api: EventsApi, opts: { maxReconnects?: number; from?: string } = {}) {
  const items: TailItem[] = [];
  const clock = new VirtualClock(0);
  let error: unknown;
  try {
    for await (const batch of subscribeEvents({
      api,
      types: [],
      from: opts.from,
      maxReconnects: opts.maxReconnects ?? 0,
      signal: new AbortController().signal,
      clock,
      random: () => 0,
    })) {
      items.push(...batch);
    }
  } catch (err) {
    error = err;
  }
  return { items, waits: clock.sleeps, error };
}

const msg = (id: string, event: string, data: string) => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;

describe('subscribeEvents', () => {
  it('injects the type, advances on offset-only and id-only messages, ignores comments', async () => {
    const api = fakeApi([
      [
        ':connected\nretry: 150\n\n',
        msg('o1', 'user.created', '{"offset":"o1","event":{"id":"e1"}}').slice(0, 20),
        msg('o1', 'user.created', '{"offset":"o1","event":{"id":"e1"}}').slice(20),
        ': heartbeat\n\n',
        msg('o2', 'offset-only', '{"offset":"o2"}'),
      ],
      [msg('o3', 'group.created', '{"offset":"o3","event":{"id":"e3"}}')],
      // No progress: the second reconnect in a row is past --max-reconnects 1.
      [],
    ]);
    const { items, waits, error } = await collect(api, { maxReconnects: 1 });
    const events = items.filter((i) => i.kind === 'event');
    expect(events.map((e) => e.kind === 'event' && e.payload())).toEqual([
      { type: 'user.created', offset: 'o1', event: { id: 'e1' } },
      { type: 'group.created', offset: 'o3', event: { id: 'e3' } },
    ]);
    expect(items.filter((i) => i.kind === 'cursor')).toEqual([{ kind: 'cursor', offset: 'o2' }]);
    // Resumes after the offset-only position with both the query and the header; waits the server's retry: 150.
    expect(api.calls[1]?.url.searchParams.get('from')).toBe('o2');
    expect(api.calls[1]?.headers['last-event-id']).toBe('o2');
    expect(waits).toEqual([150, 150]);
    expect(error).toBeInstanceOf(CliError);
    expect(exitCodeFor(error)).toBe(7);
  });

  it('reconnects after a transient error message from its offset, stops on a fatal one', async () => {
    const api = fakeApi([
      [
        msg('a', 'user.created', '{"offset":"a"}'),
        'event: error\ndata: {"error":{"code":"timeout","message":"slow","offset":"b"}}\n\n',
      ],
      ['event: error\ndata: {"error":{"code":"cursor_expired","message":"gone","offset":"b"}}\n\n'],
    ]);
    const { items, error } = await collect(api, { maxReconnects: 5 });
    expect(items.filter((i) => i.kind === 'stream-error')).toEqual([
      { kind: 'stream-error', code: 'timeout', message: 'slow', fatal: false },
      { kind: 'stream-error', code: 'cursor_expired', message: 'gone', fatal: true },
    ]);
    expect(api.calls[1]?.url.searchParams.get('from')).toBe('b');
    expect(exitCodeFor(error)).toBe(8);
    expect((refineError(error, {}) as CliError).hint).toContain('--since');
  });

  it('waits at least Retry-After on a 429 and treats 400 as fatal', async () => {
    const api = fakeApi([
      {
        status: 429,
        statusText: 'Too Many Requests',
        headers: { 'retry-after': '3' },
        body: '{"message":"slow down"}',
      },
      {
        status: 400,
        statusText: 'Bad Request',
        headers: {},
        body: '{"message":"Invalid cursor.","errorCode":"invalid_cursor"}',
      },
    ]);
    const { waits, error } = await collect(api, { maxReconnects: 5, from: 'zzz' });
    expect(waits).toEqual([3000]);
    expect(exitCodeFor(error)).toBe(8);
    expect((refineError(error, {}) as CliError).hint).toContain('--from');
  });

  it('lets an authentication failure through at once', async () => {
    const api: EventsApi = {
      url: (segments, query) => buildUrl('https://tenant.example.com/api/v2', segments, query),
      open: async () => {
        throw new AuthError('authentication failed: Invalid token.');
      },
    };
    const { error } = await collect(api, { maxReconnects: 5 });
    expect(error).toBeInstanceOf(AuthError);
  });

  it('skips data that is not a JSON object, with a warning, and keeps the position', async () => {
    const api = fakeApi([[msg('x1', 'user.created', 'not json')]]);
    const { items } = await collect(api);
    expect(items).toContainEqual({
      kind: 'warning',
      message: 'skipped a user.created message whose data is not a JSON object',
    });
    expect(items.some((i) => i.kind === 'event')).toBe(false);
  });
});
