import { generateKeyPairSync } from 'node:crypto';
import { ManagementClient } from 'auth0';
import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';

/**
 * Issue 18, acceptance: the vendor's own Node SDK (auth0 7.1.0, the version api-notes names) drives the emulator
 * through every endpoint svcadm speaks. The SDK's paths are the spec's; it only speaks https to `https://{domain}`,
 * so its `fetch` option carries the same requests to the emulator's plain-http loopback address. Nothing else is
 * changed: the token request, the audience, the query strings and the pagination are the SDK's own.
 */

let emu: TestEmulator;
const seen: string[] = [];

/** The SDK's requests, as sent, to the emulator over http (and recorded: which paths it used). */
function toEmulator(port: number): typeof fetch {
  const https = `https://127.0.0.1:${port}`;
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(https)) throw new Error(`the SDK asked for ${url}`);
    const local = `http://127.0.0.1:${port}${url.slice(https.length)}`;
    seen.push(`${init?.method ?? 'GET'} ${new URL(local).pathname}`);
    return fetch(input instanceof Request ? new Request(local, input) : local, init);
  };
}

function sdk(options: { clientAssertionSigningKey: string } | { clientSecret: string }): ManagementClient {
  return new ManagementClient({
    domain: `127.0.0.1:${emu.port}`,
    clientId: emu.admin.clientId,
    ...options,
    fetch: toEmulator(emu.port),
    maxRetries: 0,
  });
}

withFileEmulator(
  (each) => {
    emu = each.emu;
    seen.length = 0;
  },
  { emulator: { eventRate: 0, rateLimit: 0 } },
);

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of pages) items.push(item);
  return items;
}

describe('the vendor Node SDK against the emulator', () => {
  it('lists and gets rate limit policies', async () => {
    const client = sdk({ clientSecret: emu.admin.clientSecret });
    const policies = await collect(await client.rateLimitPolicies.list({ take: 3 }));
    expect(policies.map((p) => p.id)).toEqual(emu.fixtures.policyIds);
    const one = await client.rateLimitPolicies.get(emu.fixtures.policyIdByAction.redirect);
    expect(one).toMatchObject({ id: emu.fixtures.policyIdByAction.redirect, consumer_selector: 'cimd_clients' });
    expect(seen[0]).toBe('POST /oauth/token');
  });

  it('lists connections by strategy, following checkpoints', async () => {
    const client = sdk({ clientSecret: emu.admin.clientSecret });
    const all = await collect(await client.connections.list({ take: 25 }));
    expect(all.map((c) => c.id)).toEqual(emu.fixtures.connectionIds);
    const databases = await collect(await client.connections.list({ take: 5, strategy: ['auth0'] }));
    expect(databases.length).toBeGreaterThan(5);
    expect(new Set(databases.map((c) => c.strategy))).toEqual(new Set(['auth0']));
  });

  it('lists directory provisionings, pages through user permissions, finds users by e-mail', async () => {
    const client = sdk({ clientSecret: emu.admin.clientSecret });
    const provisionings = await collect(await client.connections.directoryProvisioning.list({}));
    expect(provisionings).toHaveLength(260);
    // The SDK stops at a page shorter than it asked for, so it asks for the page size the tenant serves (50).
    const permissions = await collect(await client.users.permissions.list(emu.fixtures.bulkUserId, { per_page: 50 }));
    expect(permissions).toHaveLength(1200);
    const users = await client.users.listUsersByEmail({ email: emu.fixtures.sharedEmail });
    expect(users.map((u) => u.identities?.[0]?.connection)).toEqual([
      'Username-Password-Authentication',
      'Staff-Database',
    ]);
    expect(await client.users.listUsersByEmail({ email: 'nobody@example.com' })).toEqual([]);
  });

  it('deletes a connection user by e-mail, idempotently', async () => {
    const client = sdk({ clientSecret: emu.admin.clientSecret });
    const email = emu.fixtures.databaseUserEmails[1] ?? '';
    await client.connections.users.deleteByEmail(emu.fixtures.databaseConnectionId, { email });
    await client.connections.users.deleteByEmail(emu.fixtures.databaseConnectionId, { email });
    expect(await client.users.listUsersByEmail({ email })).toEqual([]);
  });

  it('subscribes to the event stream and reads live events', async () => {
    const client = sdk({ clientSecret: emu.admin.clientSecret });
    const abort = new AbortController();
    const stream = await client.events.subscribe({ event_type: ['user.created'] }, { abortSignal: abort.signal });
    const { offsets } = await emu.emit('user.created', 2);
    const received: unknown[] = [];
    for await (const event of stream) {
      received.push(event);
      if (received.length === 2) break;
    }
    abort.abort();
    expect(received).toHaveLength(2);
    expect(JSON.stringify(received)).toContain('user.created');
    expect(offsets).toHaveLength(2);
  });

  it('authenticates with a private key: the assertion the SDK signs is accepted', async () => {
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await emu.registerClientKey('admin', keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const client = sdk({
      clientAssertionSigningKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    const policies = await collect(await client.rateLimitPolicies.list({}));
    expect(policies).toHaveLength(8);
    const { requests } = await emu.requests();
    const token = requests.find((r) => r.kind === 'token');
    expect(token?.token).toMatchObject({
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    });
  });
});
