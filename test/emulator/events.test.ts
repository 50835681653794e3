import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/emulator/server.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { api, SseClient, streamUrl } from './support.js';

let emu: TestEmulator;
let token: string;
const open: SseClient[] = [];

beforeAll(async () => {
  emu = await startTestEmulator({ eventRate: 0, rateLimit: 0, events: 600 });
  token = await emu.token();
});
afterAll(() => emu.close());
beforeEach(async () => {
  for (const stream of open.splice(0)) stream.close();
  await emu.reset();
});

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
      expect(data.event).toMatchObject({ specversion: '1.0', svcpurpose: 'test' });
      for (const key of ['source', 'id', 'time', 'svctenant', 'svcstream'])
        expect(typeof data.event[key]).toBe('string');
      expect(data.event.data).toHaveProperty('object');
      expect(data.event.data).toHaveProperty('context');
    }
    expect(types).toEqual(new Set(EVENT_TYPES));
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

  it('400s a garbage or overlong cursor and 410s an expired one', async () => {
    const bad = await api(emu, '/events?from=garbage', { token });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ errorCode: 'invalid_cursor' });
    expect((await api(emu, `/events?from=${'a'.repeat(1025)}`, { token })).status).toBe(400);
    const { offsets } = await emu.emit('user.updated', 1);
    await emu.expireCursors();
    const expired = await api(emu, `/events?from=${offsets[0]}`, { token });
    expect(expired.status).toBe(410);
    expect(expired.json).toMatchObject({ statusCode: 410, errorCode: 'cursor_expired' });
  });
});

describe('GET /events filters', () => {
  it('streams only the requested types and advances the cursor with offset-only messages', async () => {
    const client = await stream(
      'from_timestamp=2000-01-01T00:00:00Z&event_type=group.created&event_type=group.deleted',
    );
    const head = await api(emu, '', { token: null }); // any request; the head is what we compare against below
    expect(head.status).toBe(404);
    const { offsets } = await emu.emit('organization.created', 150);
    await client.waitFor(() => client.messages.at(-1)?.id === offsets.at(-1));
    expect(client.events.length).toBeGreaterThan(0);
    expect(client.events.every((m) => m.event === 'group.created' || m.event === 'group.deleted')).toBe(true);
    const offsetOnly = client.messages.filter((m) => m.event === 'offset-only');
    expect(offsetOnly.length).toBeGreaterThan(0);
    for (const m of offsetOnly) expect(JSON.parse(m.data)).toEqual({ offset: m.id });
    // The last message is an offset-only one pointing at the last skipped event: a resume starts after it.
    expect(client.messages.at(-1)?.event).toBe('offset-only');
  });

  it('400s an unknown event type', async () => {
    const answer = await api(emu, '/events?event_type=user.created&event_type=user.exploded', { token });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ errorCode: 'invalid_query_string' });
    expect((await api(emu, '/events?event_type=user.created,user.deleted', { token })).status).toBe(400);
  });
});

describe('GET /events server behaviour', () => {
  it('limits concurrent streams with a 403', async () => {
    const streams = await Promise.all([stream(), stream(), stream(), stream()]);
    expect(streams.every((s) => s.status === 200)).toBe(true);
    const refused = await api(emu, '/events', { token });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      message: 'Too many concurrent streams (limit 4)',
      errorCode: 'too_many_streams',
    });
    streams[0]?.close();
    await emu.dropStreams();
    const again = await stream();
    expect(again.status).toBe(200);
  });

  it('sends heartbeats', async () => {
    await emu.updateSettings({ heartbeatMs: 20 });
    const client = await stream();
    await client.waitFor(() => client.comments.includes('heartbeat'));
    expect(client.raw).toContain('\n: heartbeat\n\n');
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

  it('closes streams after their lifetime', async () => {
    await emu.updateSettings({ streamLifetimeMs: 50 });
    const client = await stream();
    await client.waitFor(() => client.ended);
  });

  it('emits live events at eventRate', async () => {
    await emu.updateSettings({ eventRate: 200 });
    const client = await stream();
    await client.waitFor(() => client.events.length >= 3);
    await emu.updateSettings({ eventRate: 0 });
  });
});
