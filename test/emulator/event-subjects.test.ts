import { afterEach, describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulatorAndToken } from '../helpers/emulator.js';
import { api, SseClient, streamUrl } from './support.js';

// Issue 38 point 11: the emulator's events name the users and connections the tenant has, never made-up ones, so
// that what a tail shows can be looked up with the other commands.

let emu: TestEmulator;
let token: string;
let client: SseClient | undefined;
withFileEmulatorAndToken({ eventRate: 0, rateLimit: 0, events: 600 }, (started) => ({ emu, token } = started));
afterEach(() => client?.close());

interface Named {
  users: Set<string>;
  connectionIds: Set<string>;
  connectionNames: Set<string>;
}

/** Every user id, connection id and connection name an event's data holds, wherever it is. */
function collect(value: unknown, named: Named, key = ''): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, named, key);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  if (key === 'identities' && typeof object.connection === 'string') named.connectionNames.add(object.connection);
  if (key !== 'identities' && typeof object.user_id === 'string') named.users.add(object.user_id);
  if (object.member_type === 'user' && typeof object.id === 'string') named.users.add(object.id);
  if (typeof object.connection_id === 'string') named.connectionIds.add(object.connection_id);
  if (key === 'connection' && typeof object.id === 'string') {
    named.connectionIds.add(object.id);
    if (typeof object.name === 'string') named.connectionNames.add(object.name);
  }
  for (const [k, v] of Object.entries(object)) collect(v, named, k);
}

async function listedConnections(): Promise<Array<{ id: string; name: string }>> {
  const all: Array<{ id: string; name: string }> = [];
  let from: string | undefined;
  do {
    const answer = await api(emu, `/connections?take=100${from ? `&from=${encodeURIComponent(from)}` : ''}`, {
      token,
    });
    const body = answer.json as { connections: Array<{ id: string; name: string }>; next?: string };
    all.push(...body.connections);
    from = body.next;
  } while (from);
  return all;
}

describe("the emulator's events", () => {
  it('name only users and connections the emulator lists', async () => {
    client = await SseClient.open(streamUrl(emu, 'from_timestamp=2000-01-01T00:00:00Z'), token);
    await client.waitFor(() => (client?.events.length ?? 0) >= 600);
    const named: Named = { users: new Set(), connectionIds: new Set(), connectionNames: new Set() };
    for (const message of client.events) {
      const { event } = JSON.parse(message.data) as {
        event: { type: string; data: { object: unknown; previous_object?: unknown; context: unknown } };
      };
      const { object, previous_object, context } = event.data;
      if (event.type.startsWith('connection.')) collect({ connection: object }, named);
      collect([object, previous_object ?? null, context], named);
    }
    // Enough of each kind that the check means something.
    expect(named.users.size).toBeGreaterThan(5);
    expect(named.connectionIds.size).toBeGreaterThan(1);

    const connections = await listedConnections();
    const ids = new Set(connections.map((c) => c.id));
    const names = new Set(connections.map((c) => c.name));
    expect([...named.connectionIds].filter((id) => !ids.has(id))).toEqual([]);
    expect([...named.connectionNames].filter((name) => !names.has(name))).toEqual([]);
    const unknownUsers: string[] = [];
    for (const user of named.users) {
      const answer = await api(emu, `/users/${encodeURIComponent(user)}/permissions?per_page=1`, { token });
      if (answer.status !== 200) unknownUsers.push(`${user}: ${answer.status}`);
    }
    expect(unknownUsers).toEqual([]);
  });
});
