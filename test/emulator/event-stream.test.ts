import { beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/emulator/server.js';
import { type TestEmulator, withFileEmulatorAndToken } from '../helpers/emulator.js';
import { api, SseClient, streamUrl } from './support.js';

let emu: TestEmulator;
let token: string;
const open: SseClient[] = [];

// Before the reset of each test (hooks run in the order they are registered): the streams the last test opened.
beforeEach(() => {
  for (const stream of open.splice(0)) stream.close();
});
withFileEmulatorAndToken({ eventRate: 0, rateLimit: 0, events: 600 }, (started) => ({ emu, token } = started));

async function stream(query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await SseClient.open(streamUrl(emu, query), token, headers);
  open.push(client);
  return client;
}

interface Payload {
  offset: string;
  event: Record<string, unknown> & { type: string; data: Record<string, unknown> };
}

const payloads = (client: SseClient) => client.events.map((m) => JSON.parse(m.data) as Payload);

describe('GET /events wire format', () => {
  it('opens with :connected and retry: 2000, then id/event/data messages without type in data', async () => {
    const client = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await client.waitFor(() => client.events.length >= 600);
    expect(client.status).toBe(200);
    expect(String(client.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(client.headers['x-ratelimit-limit']).toBeDefined();
    expect(client.raw.startsWith(':connected\nretry: 2000\n\n')).toBe(true);
    expect(client.comments[0]).toBe('connected');
    expect(client.retries).toEqual([2000]);
    const firstMessage = client.raw.split('\n\n')[2] ?? '';
    const lines = firstMessage.split('\n');
    expect(lines[0]).toMatch(/^id: [A-Za-z0-9_-]+$/);
    expect(lines[1]).toMatch(/^event: [a-z.]+$/);
    expect(lines[2]).toMatch(/^data: \{"offset":"/);
    expect(lines).toHaveLength(3);

    const messages = client.events;
    expect(messages).toHaveLength(600);
    const types = new Set<string>();
    for (const message of messages) {
      const data = JSON.parse(message.data) as Record<string, unknown> & Payload;
      expect(Object.keys(data).sort()).toEqual(['event', 'offset']);
      expect(data).not.toHaveProperty('type');
      expect(data.offset).toBe(message.id);
      expect(data.offset.length).toBeLessThanOrEqual(1024);
      expect(data.offset).not.toMatch(/^\d+$/);
      expect(data.event.type).toBe(message.event);
      types.add(String(message.event));
      expect(data.event).toMatchObject({ specversion: '1.0' });
      expect(data.event).not.toHaveProperty('svcpurpose');
      for (const key of ['source', 'id', 'time', 'svctenant', 'svcstream'])
        expect(typeof data.event[key]).toBe('string');
      expect(data.event.data).toHaveProperty('object');
      expect(data.event.data).toHaveProperty('context');
    }
    expect(types).toEqual(new Set(EVENT_TYPES));
    const ids = payloads(client).map((p) => String(p.event.id));
    expect(new Set(ids).size).toBe(600);
    const times = payloads(client).map((p) => Date.parse(String(p.event.time)));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('carries the full connection object in connection events', async () => {
    const client = await stream('from_timestamp=2000-01-01T00:00:00Z&event_type=connection.created');
    await client.waitFor(() => client.events.length >= 1);
    const object = payloads(client)[0]?.event.data.object as Record<string, unknown>;
    expect(Object.keys(object).sort()).toEqual(
      [
        'authentication',
        'connected_accounts',
        'display_name',
        'enabled_clients',
        'id',
        'is_domain_connection',
        'metadata',
        'name',
        'options',
        'realms',
        'show_as_button',
        'strategy',
      ].sort(),
    );
    const options = object.options as Record<string, unknown>;
    expect(options).toMatchObject({ schema_version: 'openid-1.0.0', connection_settings: { pkce: 'auto' } });
    expect(Object.keys(options.oidc_metadata as object)).toHaveLength(38);
    const context = payloads(client)[0]?.event.data.context as Record<string, unknown>;
    expect(Object.keys(context).sort()).toEqual(['client', 'connection', 'request', 'tenant']);
  });
});

describe('GET /events payloads as the vendor sends them (api-notes: Envelope details)', () => {
  it('every event: id evt_ + 22 or 16 letters and digits (every fourth), source urn:svc:<tenant>.<region domain>, no svcpurpose', async () => {
    const client = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await client.waitFor(() => client.events.length >= 600);
    const [first] = payloads(client);
    const tenant = String(first?.event.svctenant);
    expect(tenant).toMatch(/^[a-z0-9][-a-z0-9]{1,62}[a-z0-9]$/);
    for (const { event } of payloads(client)) {
      expect(event.id).toMatch(/^evt_([A-Za-z0-9]{22}|[A-Za-z0-9]{16})$/);
      expect(event.source).toBe(`urn:svc:${tenant}.us.svc.example`);
      expect(event.svctenant).toBe(tenant);
      expect(event.svcstream).toMatch(/^est_[a-z0-9]{16}$/);
      expect(event).not.toHaveProperty('svcpurpose');
      expect((event.data.context as { tenant: unknown }).tenant).toEqual({ id: tenant });
    }
  });

  it('each of the 25 types: .updated with previous_object, member_type, deleted_at, role created_at / deleted_at', async () => {
    const client = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await client.waitFor(() => client.events.length >= 600);
    const byType = new Map<string, Array<Payload['event']['data']>>();
    for (const { event } of payloads(client)) byType.set(event.type, [...(byType.get(event.type) ?? []), event.data]);
    expect([...byType.keys()].sort()).toEqual([...EVENT_TYPES].sort());
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    for (const [type, datas] of byType) {
      for (const data of datas) {
        const object = data.object as Record<string, unknown>;
        if (type.endsWith('.updated')) {
          expect(data, type).toHaveProperty('previous_object');
          expect(data.previous_object, type).not.toEqual(object);
        } else expect(data, type).not.toHaveProperty('previous_object');
        if (type.startsWith('group.member.')) {
          const member = object.member as Record<string, unknown>;
          expect(['user', 'group'], type).toContain(member.member_type);
          expect(typeof member.id).toBe('string');
        }
        if (type === 'user.deleted') expect(object.deleted_at, type).toMatch(iso);
        if (type.endsWith('.role.assigned')) {
          expect(object.created_at, type).toMatch(iso);
          expect(object).not.toHaveProperty('deleted_at');
        }
        if (type.endsWith('.role.deleted')) {
          expect(object.deleted_at, type).toMatch(iso);
          expect(object).not.toHaveProperty('created_at');
        }
      }
    }
    const updatedTypes = EVENT_TYPES.filter((t) => t.endsWith('.updated'));
    expect(updatedTypes).toEqual([
      'connection.updated',
      'group.updated',
      'organization.updated',
      'organization.connection.updated',
      'user.updated',
    ]);
  });

  it('events emitted through the control API are normal unless marked test, then carry svcpurpose test', async () => {
    const client = await stream();
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    await emu.emit('user.created', 1);
    await emu.emitEvent({ type: 'user.created', test: true });
    const object = { user_id: 'db|given', email: 'given@example.com' };
    await emu.emitEvent({ type: 'user.updated', object });
    await emu.emitEvent({ type: 'user.updated', object, previous_object: { user_id: 'db|given' } });
    await client.waitFor(() => client.events.length === 4);
    const [normal, test, updated, withPrevious] = payloads(client).map((p) => p.event);
    expect(normal).not.toHaveProperty('svcpurpose');
    expect(test?.svcpurpose).toBe('test');
    expect(updated?.data).toMatchObject({ object, previous_object: object });
    expect(updated).not.toHaveProperty('svcpurpose');
    expect(withPrevious?.data).toMatchObject({ object, previous_object: { user_id: 'db|given' } });
  });

  it('a user removed by DELETE comes as user.deleted with deleted_at', async () => {
    const client = await stream();
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    const path = `/connections/${emu.fixtures.databaseConnectionId}/users?email=alice%40example.com`;
    expect((await api(emu, path, { token, method: 'DELETE' })).status).toBe(204);
    await client.waitFor(() => client.events.length === 1);
    const object = payloads(client)[0]?.event.data.object as Record<string, unknown>;
    expect(object).toMatchObject({ email: 'alice@example.com' });
    expect(object.deleted_at).toBe(object.updated_at);
    expect(Math.abs(Date.parse(String(object.deleted_at)) - Date.now())).toBeLessThan(60_000);
  });
});

describe('GET /events positions', () => {
  it('starts at the latest events when no position is given', async () => {
    const client = await stream();
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    const { offsets } = await emu.emit('user.created', 3);
    await client.waitFor(() => client.events.length === 3);
    expect(client.events.map((m) => m.id)).toEqual(offsets);
  });

  it('resumes after `from`, and Last-Event-ID wins over `from`', async () => {
    const first = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await first.waitFor(() => first.events.length >= 600);
    const all = first.events;
    const tenth = all[9]?.id ?? '';
    const twentieth = all[19]?.id ?? '';
    const resumed = await stream(`from=${tenth}`);
    await resumed.waitFor(() => resumed.events.length >= 590);
    expect(resumed.events[0]?.id).toBe(all[10]?.id);
    const header = await stream(`from=${tenth}`, { 'Last-Event-ID': twentieth });
    await header.waitFor(() => header.events.length >= 580);
    expect(header.events[0]?.id).toBe(all[20]?.id);
  });

  it('starts from a timestamp and accepts only the 20-character form', async () => {
    const all = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await all.waitFor(() => all.events.length >= 600);
    const times = payloads(all).map((p) => String(p.event.time));
    const pivot = new Date(Date.parse(times[300] ?? '') + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expect(pivot).toHaveLength(20);
    const since = await stream(`from_timestamp=${pivot}`);
    await since.waitFor(() => since.events.length >= 1);
    const firstIndex = times.findIndex((t) => Date.parse(t) >= Date.parse(pivot));
    expect(firstIndex).toBeGreaterThan(290);
    expect(since.events[0]?.id).toBe(all.events[firstIndex]?.id);
    for (const bad of ['2024-01-01T00:00:00.000Z', '2024-01-01', '2024-01-01T00:00:00+00:00', 'yesterday']) {
      const answer = await api(emu, `/events?from_timestamp=${encodeURIComponent(bad)}`, { token });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ errorCode: 'invalid_query_string' });
    }
  });

  it("400s a garbage or overlong cursor and 410s an expired one, with the vendor's messages (api-notes: Event stream)", async () => {
    const invalid = {
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid cursor format.',
      errorCode: 'invalid_cursor',
    };
    const bad = await api(emu, '/events?from=garbage', { token });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual(invalid);
    const long = await api(emu, `/events?from=${'a'.repeat(1025)}`, { token });
    expect(long.status).toBe(400);
    expect(long.json).toEqual(invalid);
    const { offsets } = await emu.emit('user.updated', 1);
    await emu.expireCursors();
    const expired = await api(emu, `/events?from=${offsets[0]}`, { token });
    expect(expired.status).toBe(410);
    expect(expired.json).toEqual({
      statusCode: 410,
      error: 'Gone',
      message: 'Cursor points to data no longer available in the stream.',
      errorCode: 'cursor_expired',
    });
  });

  it('400s from and from_timestamp together: they are mutually exclusive (api-notes: Event stream)', async () => {
    const { before } = await emu.emit('user.created', 1);
    const both = await api(emu, `/events?from=${before}&from_timestamp=2000-01-01T00:00:00Z`, { token });
    expect(both.status).toBe(400);
    expect(both.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: "Query validation error: 'from and from_timestamp are mutually exclusive'",
      errorCode: 'invalid_query_string',
    });
  });

  it('Last-Event-ID wins over from_timestamp: a resuming EventSource keeps its first URL (api-notes: Event stream)', async () => {
    const { offsets } = await emu.emit('user.created', 3);
    const resumed = await stream('from_timestamp=2000-01-01T00:00:00Z', { 'Last-Event-ID': offsets[0] ?? '' });
    await resumed.waitFor(() => resumed.events.length >= 2);
    expect(resumed.events.map((m) => m.id)).toEqual(offsets.slice(1));
  });
});

describe('GET /events filters', () => {
  it('streams only the requested types, and sends no offset-only message per skipped run (api-notes: offset-only at heartbeat frequency)', async () => {
    const client = await stream('event_type=group.created&event_type=group.deleted');
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    await emu.emit('organization.created', 150);
    const { offsets } = await emu.emit('group.deleted', 1);
    await client.waitFor(() => client.messages.length === 1);
    expect(client.messages.map((m) => [m.event, m.id])).toEqual([['group.deleted', offsets[0]]]);
  });

  it("a filtered stream's cursor moves on through offset-only heartbeats while nothing matches (api-notes: Event stream)", async () => {
    await emu.updateSettings({ heartbeatMs: 20 });
    const client = await stream('event_type=group.created');
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    const { offsets } = await emu.emit('organization.created', 150);
    await client.waitFor(() => client.messages.some((m) => m.id === offsets.at(-1)));
    expect(client.events).toEqual([]);
    const offsetOnly = client.messages.filter((m) => m.event === 'offset-only');
    for (const m of offsetOnly) expect(JSON.parse(m.data)).toEqual({ offset: m.id });
    // A resume from the heartbeat's offset starts after the skipped run.
    const resumed = await stream(`from=${offsets.at(-1)}`);
    await resumed.waitFor(() => resumed.raw.includes('retry: 2000'));
    const next = await emu.emit('group.created', 1);
    await resumed.waitFor(() => resumed.events.length === 1);
    expect(resumed.events[0]?.id).toBe(next.offsets[0]);
  });

  it("400s an unknown event type with the vendor's message (api-notes: Event stream)", async () => {
    const answer = await api(emu, '/events?event_type=user.created&event_type=user.exploded', { token });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Unsupported event type.',
      errorCode: 'invalid_query_string',
    });
    expect((await api(emu, '/events?event_type=user.created,user.deleted', { token })).status).toBe(400);
  });

  it("404s an unknown path under /api/v2 with the vendor's 'Not found' (api-notes: Event stream)", async () => {
    for (const path of ['/events/extra', '/nothing-here', '']) {
      const answer = await api(emu, path, { token });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ statusCode: 404, error: 'Not Found', message: 'Not found' });
    }
  });
});

describe('GET /events server behaviour', () => {
  it("limits concurrent streams with the vendor's 403, which has no errorCode (api-notes: Event stream)", async () => {
    const streams = await Promise.all([stream(), stream(), stream(), stream()]);
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await api(emu, '/events', { token });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Maximum concurrent event stream connections reached. Please close existing connections.',
    });
    streams[0]?.close();
    await emu.dropStreams();
    const again = await stream();
    expect(again.status).toBe(200);
  });

  it('sends a heartbeat comment and an offset-only message on every stream, idle and unfiltered too (api-notes: Event stream)', async () => {
    const { offsets } = await emu.emit('user.created', 2);
    await emu.updateSettings({ heartbeatMs: 20 });
    const client = await stream();
    await client.waitFor(() => client.messages.filter((m) => m.event === 'offset-only').length >= 2);
    expect(client.events).toEqual([]);
    expect(client.comments).toContain('heartbeat');
    const head = offsets.at(-1) ?? '';
    expect(client.raw).toContain(`\n: heartbeat\n\nid: ${head}\nevent: offset-only\ndata: {"offset":"${head}"}\n\n`);
    for (const m of client.messages)
      expect([m.event, m.id, m.data]).toEqual(['offset-only', head, `{"offset":"${head}"}`]);
    const live = await emu.emit('user.updated', 1);
    await client.waitFor(
      () => client.messages.at(-1)?.event === 'offset-only' && client.messages.at(-1)?.id === live.offsets[0],
    );
    expect(client.events.map((m) => m.id)).toEqual(live.offsets);
  });

  it('sends no heartbeat when heartbeatMs is 0', async () => {
    await emu.updateSettings({ heartbeatMs: 0, streamLifetimeMs: 100 });
    const client = await stream();
    await client.waitFor(() => client.ended);
    expect(client.raw).toMatch(
      /^:connected\nretry: 2000\n\nevent: error\ndata: \{"error":\{"code":"connection_timeout",[^\n]*\n\n$/,
    );
  });

  it('sends error messages, then closes', async () => {
    const client = await stream();
    await client.waitFor(() => client.raw.includes('retry: 2000'));
    expect(await emu.streamError('timeout')).toBe(1);
    await client.waitFor(() => client.ended);
    const error = client.messages.find((m) => m.event === 'error');
    const data = JSON.parse(error?.data ?? '{}') as { error: { code: string; message: string; offset: string } };
    expect(data.error.code).toBe('timeout');
    expect(typeof data.error.message).toBe('string');
    // The error's offset is a valid resume point.
    expect((await api(emu, `/events?from=${data.error.offset}&event_type=nope`, { token })).status).toBe(400);
    const resumed = await stream(`from=${data.error.offset}`);
    expect(resumed.status).toBe(200);
  });

  it('closes streams after N events, and on demand', async () => {
    await emu.dropStreamsEvery(5);
    const client = await stream('from_timestamp=2000-01-01T00:00:00Z');
    await client.waitFor(() => client.ended);
    expect(client.events).toHaveLength(5);
    await emu.updateSettings({ dropStreamsAfter: 0 });
    const other = await stream();
    await other.waitFor(() => other.raw.includes('retry: 2000'));
    expect(await emu.dropStreams()).toBe(1);
    await other.waitFor(() => other.ended);
  });

  it('rotates streams after their lifetime: connection_timeout with the current offset, then the close (api-notes)', async () => {
    await emu.updateSettings({ streamLifetimeMs: 50 });
    const { offsets } = await emu.emit('user.created', 2);
    const client = await stream(`from=${offsets[0]}`);
    await client.waitFor(() => client.ended);
    const errors = client.messages.filter((m) => m.event === 'error');
    expect(errors.map((m) => JSON.parse(m.data))).toEqual([
      {
        error: {
          code: 'connection_timeout',
          message: 'Connection lifetime reached; reconnect from the offset to continue.',
          offset: offsets[1],
        },
      },
    ]);
  });

  it('emits live events at eventRate', async () => {
    await emu.updateSettings({ eventRate: 200 });
    const client = await stream();
    await client.waitFor(() => client.events.length >= 3);
    await emu.updateSettings({ eventRate: 0 });
  });
});
