import { describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, withFileEmulatorAndToken } from '../helpers/emulator.js';
import { api } from './support.js';

let emu: TestEmulator;
let token: string;
withFileEmulatorAndToken({ eventRate: 0, rateLimit: 0 }, (started) => ({ emu, token } = started));

const get = (path: string, as = token) => api(emu, path, { token: as });

type Page<K extends string> = { [key in K]: Array<Record<string, unknown>> } & { next?: string };

async function follow<K extends string>(
  path: string,
  key: K,
): Promise<{ items: Array<Record<string, unknown>>; pages: number }> {
  const items: Array<Record<string, unknown>> = [];
  let from: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const answer = await get(`${path}${from ? `${sep}from=${encodeURIComponent(from)}` : ''}`);
    expect(answer.status, answer.text).toBe(200);
    const body = answer.json as Page<K>;
    items.push(...body[key]);
    from = body.next;
    pages++;
  } while (from);
  return { items, pages };
}

describe('GET /rate-limit-policies (api-notes: Lists that give the ids)', () => {
  it('lists every policy in checkpoint pages, with next only while more exist', async () => {
    const { items, pages } = await follow('/rate-limit-policies?take=3', 'rate_limit_policies');
    expect(pages).toBe(3);
    expect(items.map((p) => p.id)).toEqual(emu.fixtures.policyIds);
    const whole = (await get('/rate-limit-policies')).json as Record<string, unknown>;
    expect(Object.keys(whole)).toEqual(['rate_limit_policies']);
  });

  it('filters by consumer_selector, resource and consumer', async () => {
    const body = (await get('/rate-limit-policies?consumer_selector=cimd_clients')).json as Page<'rate_limit_policies'>;
    expect(body.rate_limit_policies.map((p) => p.consumer_selector)).toEqual(['cimd_clients']);
    const none = (await get('/rate-limit-policies?consumer=user')).json;
    expect(none).toEqual({ rate_limit_policies: [] });
    const all = (await get('/rate-limit-policies?resource=oauth_authentication_api&take=100'))
      .json as Page<'rate_limit_policies'>;
    expect(all.rate_limit_policies).toHaveLength(8);
  });

  it('needs read:rate_limit_policies, validates take and from', async () => {
    for (const take of ['0', '101', 'x']) {
      expect((await get(`/rate-limit-policies?take=${take}`)).status).toBe(400);
    }
    expect((await get('/rate-limit-policies?from=garbage')).json).toMatchObject({
      message: 'Invalid pagination cursor',
    });
    expect((await get('/rate-limit-policies?page=1')).status).toBe(400);
    const noScope = await get('/rate-limit-policies', null as unknown as string);
    expect(noScope.status).toBe(401);
  });

  it('answers 403 feature_not_enabled on a tenant without the feature, for the list and for one policy', async () => {
    const without = await startTestEmulator({ eventRate: 0, rateLimitPolicies: false });
    try {
      for (const path of ['/rate-limit-policies', `/rate-limit-policies/${without.fixtures.policyIds[0]}`]) {
        const answer = await api(without, path);
        expect(answer.status).toBe(403);
        expect(answer.json).toEqual({
          statusCode: 403,
          error: 'Forbidden',
          message: 'The rate limit policies feature is not enabled for this tenant.',
          errorCode: 'feature_not_enabled',
        });
      }
    } finally {
      await without.close();
    }
  });
});

describe('GET /connections', () => {
  it('checkpoint pages: take defaults to 50, 60 connections in two pages, database connections have strategy auth0', async () => {
    const first = (await get('/connections?take=50')).json as Page<'connections'>;
    expect(first.connections).toHaveLength(50);
    const { items, pages } = await follow('/connections?take=50', 'connections');
    expect(pages).toBe(2);
    expect(items.map((c) => c.id)).toEqual(emu.fixtures.connectionIds);
    expect(items).toHaveLength(60);
    expect(items[0]).toEqual({
      id: emu.fixtures.databaseConnectionId,
      name: 'Username-Password-Authentication',
      display_name: 'Username-Password-Authentication',
      strategy: 'auth0',
      realms: ['Username-Password-Authentication'],
      is_domain_connection: false,
      enabled_clients: [],
      options: {},
    });
  });

  it('filters by repeated strategy and by name; fields picks keys', async () => {
    const db = (await get('/connections?take=100&strategy=auth0')).json as Page<'connections'>;
    expect(db.connections.length).toBeGreaterThanOrEqual(2);
    expect(new Set(db.connections.map((c) => c.strategy))).toEqual(new Set(['auth0']));
    const two = (await get('/connections?take=100&strategy=auth0&strategy=oidc')).json as Page<'connections'>;
    expect(new Set(two.connections.map((c) => c.strategy))).toEqual(new Set(['auth0', 'oidc']));
    const named = (await get('/connections?take=5&name=Staff-Database&fields=id,name')).json as Page<'connections'>;
    expect(named.connections).toEqual([{ id: emu.fixtures.connectionIds[1], name: 'Staff-Database' }]);
  });

  it('the older offset form: a bare array, or with include_totals the object with total', async () => {
    const bare = (await get('/connections?per_page=5')).json as unknown[];
    expect(bare).toHaveLength(5);
    expect((await get('/connections?per_page=5&page=1&include_totals=true')).json).toMatchObject({
      start: 5,
      limit: 5,
      total: 60,
    });
    expect((await get('/connections?take=5&page=1')).status).toBe(400);
    // As the vendor's Node SDK sends it: take wins, the answer is a checkpoint page.
    const sdkStyle = (await get('/connections?take=5&include_totals=true')).json as Page<'connections'>;
    expect(sdkStyle.connections).toHaveLength(5);
    expect(typeof sdkStyle.next).toBe('string');
  });

  it('the read-only client (read:connections) may list them; no token is a 401', async () => {
    expect((await get('/connections', await emu.token('readOnly'))).status).toBe(200);
    expect((await get('/connections', null as unknown as string)).status).toBe(401);
  });
});

describe('GET /users-by-email', () => {
  it('lists every user with the address, in each connection that holds it', async () => {
    const answer = await get(`/users-by-email?email=${encodeURIComponent(emu.fixtures.sharedEmail)}`);
    expect(answer.status).toBe(200);
    const users = answer.json as Array<Record<string, unknown>>;
    expect(users.map((u) => (u.identities as Array<{ connection: string }>)[0]?.connection)).toEqual([
      'Username-Password-Authentication',
      'Staff-Database',
    ]);
    expect(Object.keys(users[0] ?? {})).toEqual([
      'user_id',
      'email',
      'email_verified',
      'name',
      'identities',
      'created_at',
      'updated_at',
    ]);
  });

  it('an unknown address is an empty list; a missing or bad one is a 400', async () => {
    expect((await get('/users-by-email?email=nobody@example.com')).json).toEqual([]);
    expect((await get('/users-by-email')).status).toBe(400);
    expect((await get('/users-by-email?email=not-an-address')).status).toBe(400);
  });

  // api-notes, "Revised in round 5": the lookup matches the address as written, the delete in any case.
  it('matches the address case-sensitively, while DELETE /connections/{id}/users matches it in any case', async () => {
    expect((await get('/users-by-email?email=ALICE@example.com')).json).toEqual([]);
    const db = emu.fixtures.databaseConnectionId;
    const deleted = await api(emu, `/connections/${db}/users?email=ALICE%40Example.com`, {
      token,
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    const left = (await get('/users-by-email?email=alice@example.com')).json as Array<{ identities: unknown[] }>;
    expect(left.map((u) => (u.identities[0] as { connection: string }).connection)).toEqual(['Staff-Database']);
  });
});

describe('a tenant without directory provisioning', () => {
  it('answers 403 feature_not_enabled on that list', async () => {
    const without = await startTestEmulator({ eventRate: 0, directoryProvisioning: false });
    try {
      const answer = await api(without, '/connections-directory-provisionings');
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({
        message: 'The directory provisioning feature is not enabled for this tenant.',
        errorCode: 'feature_not_enabled',
      });
    } finally {
      await without.close();
    }
  });
});
