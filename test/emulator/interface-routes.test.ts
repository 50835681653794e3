import { describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, withFileEmulatorAndToken } from '../helpers/emulator.js';
import { api, SseClient, streamUrl } from './support.js';

let emu: TestEmulator;
let token: string;
withFileEmulatorAndToken({ eventRate: 0, rateLimit: 0 }, (started) => ({ emu, token } = started));

const get = (path: string) => api(emu, path, { token });

function expectServiceError(answer: { status: number; json: unknown }, status: number, errorCode: string) {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({ statusCode: status, errorCode });
  expect(typeof (answer.json as { message: unknown }).message).toBe('string');
}

describe('GET /rate-limit-policies/{id}', () => {
  it('serves every configuration form and selector form', async () => {
    const policies = [];
    for (const id of emu.fixtures.policyIds) {
      const answer = await get(`/rate-limit-policies/${id}`);
      expect(answer.status).toBe(200);
      policies.push(answer.json as Record<string, unknown> & { configuration: Record<string, unknown> });
    }
    for (const p of policies) {
      expect(Object.keys(p).sort()).toEqual(
        ['configuration', 'consumer', 'consumer_selector', 'created_at', 'id', 'resource', 'updated_at'].sort(),
      );
      expect(p).toMatchObject({ resource: 'oauth_authentication_api', consumer: 'client' });
      expect(String(p.id).length).toBeLessThanOrEqual(26);
      const c = p.configuration;
      if (c.action === 'allow') expect(Object.keys(c)).toEqual(['action']);
      else if (c.action === 'redirect') {
        expect(Object.keys(c).sort()).toEqual(['action', 'limit', 'redirect_uri']);
        expect(String(c.redirect_uri)).toMatch(/^https:\/\//);
      } else expect(Object.keys(c).sort()).toEqual(['action', 'limit']);
    }
    expect(new Set(policies.map((p) => p.configuration.action))).toEqual(
      new Set(['allow', 'block', 'log', 'redirect']),
    );
    const selectors = policies.map((p) => String(p.consumer_selector));
    expect(selectors).toContain('default');
    expect(selectors).toContain('cimd_clients');
    expect(selectors).toContain('third_party_clients');
    expect(selectors.some((s) => /^client_id:https:\/\//.test(s))).toBe(true);
    expect(selectors.some((s) => /^client_id:[a-z0-9]+$/.test(s))).toBe(true);
    expect(emu.fixtures.policyIds.some((id) => id.length === 26)).toBe(true);
  });

  it('404s an unknown policy and 400s an id over 26 characters', async () => {
    const missing = await get('/rate-limit-policies/rlp_doesnotexist');
    expect(missing.json).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'The rate limit policy does not exist.',
      errorCode: 'inexistent_rate_limit_policy',
    });
    expectServiceError(await get(`/rate-limit-policies/${'a'.repeat(27)}`), 400, 'invalid_uri');
    expectServiceError(await get('/rate-limit-policies/'), 400, 'invalid_uri');
    expectServiceError(await get('/rate-limit-policies/x?foo=1'), 400, 'invalid_query_string');
  });

  it('404s unknown paths and 405s a wrong method', async () => {
    expect((await get('/nothing-here')).status).toBe(404);
    const answer = await api(emu, `/rate-limit-policies/${emu.fixtures.policyIds[0]}`, { token, method: 'DELETE' });
    expect(answer.status).toBe(405);
  });
});

describe('GET /connections-directory-provisionings', () => {
  it('pages through every provisioning with opaque checkpoints, take=100 served at the cap of 50 (api-notes: Pagination)', async () => {
    const seen: Array<Record<string, unknown>> = [];
    let from: string | undefined;
    let pages = 0;
    do {
      const answer = await get(
        `/connections-directory-provisionings?take=100${from ? `&from=${encodeURIComponent(from)}` : ''}`,
      );
      expect(answer.status).toBe(200);
      const body = answer.json as { directory_provisionings: Array<Record<string, unknown>>; next?: string };
      expect(body.directory_provisionings).toHaveLength(pages < 5 ? 50 : 10);
      seen.push(...body.directory_provisionings);
      from = body.next;
      pages++;
    } while (from);
    expect(pages).toBe(6);
    expect(seen).toHaveLength(260);
    expect(new Set(seen.map((p) => p.connection_id)).size).toBe(260);
    const first = seen[0] as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(
      [
        'connection_id',
        'connection_name',
        'created_at',
        'last_synchronization_at',
        'last_synchronization_error',
        'last_synchronization_status',
        'mapping',
        'strategy',
        'synchronize_automatically',
        'synchronize_groups',
        'updated_at',
      ].sort(),
    );
    for (const m of first.mapping as Array<Record<string, unknown>>)
      expect(Object.keys(m).sort()).toEqual(['idp', 'svc']);
    // api-notes: Directory provisioning.
    expect(new Set(seen.map((p) => p.synchronize_groups))).toEqual(new Set(['all', 'off', 'selected']));
    const hostile = seen.find((p) => p.connection_id === emu.fixtures.hostileProvisioningConnectionId);
    expect(hostile?.connection_name).toBe(emu.fixtures.hostileText);
    expect(emu.fixtures.hostileText).toContain('\u001b[31m');
  });

  it('take defaults to 50 (the OpenAPI, the Node SDK; api-notes revised in round 3), and next is omitted on the last page', async () => {
    const first = (await get('/connections-directory-provisionings')).json as {
      directory_provisionings: unknown[];
      next: string;
    };
    expect(first.directory_provisionings).toHaveLength(50);
    expect(first.next).toMatch(/^[A-Za-z0-9_.-]+$/);
    const small = await startTestEmulator({ eventRate: 0, provisionings: 3 });
    try {
      const body = (await api(small, '/connections-directory-provisionings?take=3')).json as Record<string, unknown>;
      expect(body).not.toHaveProperty('next');
    } finally {
      await small.close();
    }
  });

  it('a private-cloud page cap of 100 serves take=100 whole and defaults to 50 (api-notes: Pagination)', async () => {
    const privateCloud = await startTestEmulator({ eventRate: 0, pageCap: 100 });
    const ids = async (query: string) => {
      const body = (await api(privateCloud, `/connections-directory-provisionings${query}`)).json as {
        directory_provisionings: Array<{ connection_id: string }>;
      };
      return body.directory_provisionings.map((p) => p.connection_id);
    };
    let reference: string[];
    try {
      expect(await ids('?take=100')).toHaveLength(100);
      expect(await ids('')).toHaveLength(50);
      reference = await ids('?take=14');
    } finally {
      await privateCloud.close();
    }
    await emu.updateSettings({ pageCap: 7 });
    const capped = (await get('/connections-directory-provisionings?take=100')).json as {
      directory_provisionings: unknown[];
      next: string;
    };
    expect(capped.directory_provisionings).toHaveLength(7);
    const second = (await get(`/connections-directory-provisionings?take=100&from=${capped.next}`)).json as {
      directory_provisionings: Array<{ connection_id: string }>;
    };
    expect(second.directory_provisionings.map((p) => p.connection_id)).toEqual(reference.slice(7, 14));
  });

  it('validates take and from', async () => {
    for (const take of ['0', '101', 'abc', '1.5', '-1']) {
      expectServiceError(await get(`/connections-directory-provisionings?take=${take}`), 400, 'invalid_query_string');
    }
    expect((await get('/connections-directory-provisionings?take=1')).status).toBe(200);
    expect((await get('/connections-directory-provisionings?take=100')).status).toBe(200);
    const bad = await get('/connections-directory-provisionings?from=garbage');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ message: 'Invalid pagination cursor' });
    const { next } = (await get('/connections-directory-provisionings?take=1')).json as { next: string };
    const tampered = `${next.slice(0, 5)}${next[5] === 'A' ? 'B' : 'A'}${next.slice(6)}`;
    expect((await get(`/connections-directory-provisionings?from=${tampered}`)).status).toBe(400);
    await emu.expireCursors();
    const expired = await get(`/connections-directory-provisionings?from=${next}`);
    expect(expired.status).toBe(400);
    expect(expired.json).toMatchObject({ message: 'Invalid pagination cursor' });
  });

  it('refuses a checkpoint older than 24 hours', async () => {
    let now = Date.now();
    const clocked = await startTestEmulator({ eventRate: 0, now: () => now });
    try {
      const { next } = (await api(clocked, '/connections-directory-provisionings?take=1')).json as { next: string };
      now += 23 * 3600_000;
      expect((await api(clocked, `/connections-directory-provisionings?from=${next}`)).status).toBe(200);
      now += 2 * 3600_000;
      expect((await api(clocked, `/connections-directory-provisionings?from=${next}`)).status).toBe(400);
    } finally {
      await clocked.close();
    }
  });
});

describe('GET /users/{id}/permissions', () => {
  const path = (id: string, query = '') => `/users/${encodeURIComponent(id)}/permissions${query}`;

  it('lists permissions with sources, direct and through roles', async () => {
    const answer = await get(path(emu.fixtures.userId));
    expect(answer.status).toBe(200);
    const list = answer.json as Array<{
      sources: Array<Record<string, string>>;
      permission_name: string;
      description: string;
    }>;
    expect(Array.isArray(list)).toBe(true);
    for (const entry of list) {
      expect(Object.keys(entry).sort()).toEqual(
        ['description', 'permission_name', 'resource_server_identifier', 'resource_server_name', 'sources'].sort(),
      );
      expect(entry.sources.length).toBeGreaterThan(0);
    }
    const types = new Set(list.flatMap((e) => e.sources.map((s) => s.source_type)));
    expect(types).toEqual(new Set(['DIRECT', 'ROLE']));
    expect(list.some((e) => e.sources.length > 1)).toBe(true);
    const role = list.flatMap((e) => e.sources).find((s) => s.source_type === 'ROLE');
    expect(role?.source_id).toMatch(/^rol_/);
    expect(role?.source_name).toBeTruthy();
    const hostile = list.find((e) => e.permission_name === emu.fixtures.hostilePermissionName);
    expect(hostile?.description).toContain('\u001b[31m');
  });

  it('include_totals reports the limit actually used and the real start: per_page=100 is served at the cap of 50 (api-notes: Pagination)', async () => {
    const all: unknown[] = [];
    for (let page = 0; ; page++) {
      const body = (await get(path(emu.fixtures.bulkUserId, `?per_page=100&page=${page}&include_totals=true`)))
        .json as {
        start: number;
        limit: number;
        total: number;
        permissions: unknown[];
      };
      expect(body).toMatchObject({ start: page * 50, limit: 50, total: 1200 });
      all.push(...body.permissions);
      if (body.permissions.length < 50) break;
    }
    expect(all).toHaveLength(1200);
    expect(new Set(all.map((p) => JSON.stringify(p))).size).toBe(1200);
    const past = await get(path(emu.fixtures.bulkUserId, '?per_page=50&page=100'));
    expect(past.json).toEqual([]);
    const pastTotals = await get(path(emu.fixtures.bulkUserId, '?per_page=50&page=100&include_totals=true'));
    expect(pastTotals.json).toEqual({ start: 5000, limit: 50, total: 1200, permissions: [] });
    const small = (await get(path(emu.fixtures.bulkUserId, '?per_page=10&page=3&include_totals=true'))).json;
    expect(small).toMatchObject({ start: 30, limit: 10, total: 1200 });
  });

  it('per_page defaults to half the page cap: 25 at 50 (spec: Pagination, default is half the maximum)', async () => {
    expect((await get(path(emu.fixtures.bulkUserId))).json).toHaveLength(25);
    expect((await get(path(emu.fixtures.bulkUserId, '?include_totals=true'))).json).toMatchObject({
      start: 0,
      limit: 25,
    });
    await emu.updateSettings({ pageCap: 100 });
    const privateCloud = (await get(path(emu.fixtures.bulkUserId, '?per_page=100&page=2&include_totals=true')))
      .json as { start: number; limit: number; permissions: unknown[] };
    expect(privateCloud).toMatchObject({ start: 200, limit: 100 });
    expect(privateCloud.permissions).toHaveLength(100);
    expect((await get(path(emu.fixtures.bulkUserId))).json).toHaveLength(50);
  });

  it('validates page, per_page and include_totals, and 404s an unknown user', async () => {
    for (const query of [
      '?per_page=0',
      '?per_page=101',
      '?per_page=x',
      '?page=-1',
      '?page=1.5',
      '?include_totals=yes',
    ]) {
      expectServiceError(await get(path(emu.fixtures.userId, query)), 400, 'invalid_query_string');
    }
    expect((await get(path(emu.fixtures.userId, '?per_page=1&page=0'))).status).toBe(200);
    expectServiceError(await get(path('db|nobody')), 404, 'inexistent_user');
    expect((await get(path('db|nobody'))).json).toMatchObject({ message: 'The user does not exist.' });
  });

  it('decodes the percent-encoded user id', async () => {
    expect(emu.fixtures.userId).toContain('|');
    await emu.clearRequests();
    await get(path(emu.fixtures.userId));
    const { requests } = await emu.requests();
    expect(requests.at(-1)?.path).toBe(`/api/v2/users/${encodeURIComponent(emu.fixtures.userId)}/permissions`);
  });
});

describe('DELETE /connections/{id}/users', () => {
  const del = (connection: string, query: string, headers: Record<string, string> = {}) =>
    api(emu, `/connections/${encodeURIComponent(connection)}/users${query}`, { token, method: 'DELETE', headers });

  it('delete is idempotent: 204 with no body, then 204 again for the e-mail now gone (api-notes: Delete a connection user)', async () => {
    const email = 'bob+ci@example.com';
    expect(emu.fixtures.databaseUserEmails).toContain(email);
    await emu.clearRequests();
    const first = await del(emu.fixtures.databaseConnectionId, `?email=${encodeURIComponent(email)}`, {
      'X-Correlation-ID': 'corr-123',
    });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect(first.headers['x-ratelimit-limit']).toBeDefined();
    const { requests } = await emu.requests();
    const logged = requests.at(-1);
    expect(new URLSearchParams(logged?.query).get('email')).toBe(email);
    expect(logged?.headers['x-correlation-id']).toBe('corr-123');
    expect(logged?.headers).not.toHaveProperty('authorization');
    const again = await del(emu.fixtures.databaseConnectionId, `?email=${encodeURIComponent(email)}`);
    expect(again.status).toBe(204);
    expect(again.text).toBe('');
    const never = await del(emu.fixtures.databaseConnectionId, '?email=nobody%40example.com');
    expect(never.status).toBe(204);
    expect(never.text).toBe('');
  });

  it('user.deleted is emitted only when a user was removed (api-notes: Delete a connection user)', async () => {
    const stream = await SseClient.open(streamUrl(emu), token);
    try {
      await stream.waitFor(() => stream.raw.includes('retry: 2000'));
      const email = encodeURIComponent('alice@example.com');
      for (const query of [`?email=${email}`, `?email=${email}`, '?email=nobody%40example.com']) {
        expect((await del(emu.fixtures.databaseConnectionId, query)).status).toBe(204);
      }
      const { offsets } = await emu.emit('group.created');
      await stream.waitFor(() => stream.events.at(-1)?.id === offsets[0]);
      expect(stream.events.map((m) => m.event)).toEqual(['user.deleted', 'group.created']);
    } finally {
      stream.close();
    }
  });

  it('emits user.deleted to open streams', async () => {
    const stream = await SseClient.open(streamUrl(emu, 'event_type=user.deleted'), token);
    try {
      await stream.waitFor(() => stream.raw.includes('retry: 2000'));
      expect((await del(emu.fixtures.databaseConnectionId, '?email=alice%40example.com')).status).toBe(204);
      await stream.waitFor(() => stream.events.length === 1);
      const payload = JSON.parse(stream.events[0]?.data ?? '{}') as {
        event: { type: string; data: { object: { email: string } } };
      };
      expect(payload.event.type).toBe('user.deleted');
      expect(payload.event.data.object.email).toBe('alice@example.com');
    } finally {
      stream.close();
    }
  });

  it("refuses non-database connections (400) and unknown connections (404) with the vendor's messages (api-notes: Delete a connection user)", async () => {
    const nonDb = await del(emu.fixtures.nonDatabaseConnectionId, '?email=alice%40example.com');
    expect(nonDb.status).toBe(400);
    expect(nonDb.json).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Connection must be a database connection',
      errorCode: 'operation_not_supported',
    });
    const unknown = await del('con_unknown', '?email=alice%40example.com');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'The connection does not exist',
      errorCode: 'inexistent_connection',
    });
    expectServiceError(await del(emu.fixtures.databaseConnectionId, ''), 400, 'invalid_query_string');
    expectServiceError(
      await del(emu.fixtures.databaseConnectionId, '?email=not-an-email'),
      400,
      'invalid_query_string',
    );
  });

  it('unknownUserDeleteStatus 404 answers inexistent_user for an e-mail no user has, as some services do', async () => {
    const strict = await startTestEmulator({ eventRate: 0, unknownUserDeleteStatus: 404 });
    try {
      const path = (email: string) =>
        `/connections/${strict.fixtures.databaseConnectionId}/users?email=${encodeURIComponent(email)}`;
      expect((await api(strict, path('alice@example.com'), { method: 'DELETE' })).status).toBe(204);
      const gone = await api(strict, path('alice@example.com'), { method: 'DELETE' });
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'The user does not exist.',
        errorCode: 'inexistent_user',
      });
    } finally {
      await strict.close();
    }
    await emu.updateSettings({ unknownUserDeleteStatus: 404 });
    expectServiceError(
      await del(emu.fixtures.databaseConnectionId, '?email=nobody%40example.com'),
      404,
      'inexistent_user',
    );
    await emu.updateSettings({ unknownUserDeleteStatus: 204 });
    expect((await del(emu.fixtures.databaseConnectionId, '?email=nobody%40example.com')).status).toBe(204);
    await expect(emu.updateSettings({ unknownUserDeleteStatus: 500 as 404 })).rejects.toThrow(
      'unknownUserDeleteStatus must be 204 or 404',
    );
  });
});
