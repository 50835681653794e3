import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { api } from './support.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ eventRate: 0 });
});
afterAll(() => emu.close());

function tokenRequest(body: string, contentType: string, path = '/oauth/token', headers: Record<string, string> = {}) {
  return fetch(`${emu.url}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function decodePart(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('token endpoint', () => {
  it('issues an RS256 JWT with the claims and the JWKS verifies it', async () => {
    const res = await tokenRequest(
      form({
        grant_type: 'client_credentials',
        client_id: emu.admin.clientId,
        client_secret: emu.admin.clientSecret,
        audience: `${emu.url}/api/v2/`,
      }),
      'application/x-www-form-urlencoded',
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 86400 });
    expect(String(body.scope).split(' ')).toEqual(emu.admin.scopes);
    expect(emu.admin.scopes).toContain('delete:users');
    expect(emu.admin.scopes).toContain('read:rate_limit_policies');
    const [h, p, s] = String(body.access_token).split('.');
    expect(decodePart(h)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const claims = decodePart(p);
    expect(claims).toMatchObject({
      iss: `${emu.url}/`,
      sub: `${emu.admin.clientId}@clients`,
      aud: `${emu.url}/api/v2/`,
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(86400);
    expect(claims.scope).toBe(body.scope);

    const jwks = (await (await fetch(`${emu.url}/.well-known/jwks.json`)).json()) as {
      keys: Array<Record<string, string>>;
    };
    const jwk = jwks.keys[0];
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: decodePart(h).kid });
    const key = createPublicKey({ key: jwk as never, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s ?? '', 'base64url'))).toBe(true);
  });

  it('accepts JSON bodies and the /oauth/token/ path', async () => {
    const res = await tokenRequest(
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: emu.readOnly.clientId,
        client_secret: emu.readOnly.clientSecret,
        audience: `${emu.url}/api/v2/`,
      }),
      'application/json',
      '/oauth/token/',
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scope: string };
    expect(body.scope.split(' ').every((s) => s.startsWith('read:'))).toBe(true);
    expect(body.scope.split(' ')).toEqual(emu.readOnly.scopes);
  });

  it('refuses wrong credentials with 401 and a wrong audience with 403, in the OAuth shape', async () => {
    const wrong = await tokenRequest(
      form({
        grant_type: 'client_credentials',
        client_id: emu.admin.clientId,
        client_secret: 'nope',
        audience: `${emu.url}/api/v2/`,
      }),
      'application/x-www-form-urlencoded',
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized' });

    const audience = await tokenRequest(
      form({
        grant_type: 'client_credentials',
        client_id: emu.admin.clientId,
        client_secret: emu.admin.clientSecret,
        audience: 'https://elsewhere.example.com/api/v2/',
      }),
      'application/x-www-form-urlencoded',
    );
    expect(audience.status).toBe(403);
    expect(await audience.json()).toMatchObject({ error: 'access_denied' });

    const grant = await tokenRequest(form({ grant_type: 'password' }), 'application/x-www-form-urlencoded');
    expect(grant.status).toBe(400);
    expect(await grant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('records token requests without the secret', async () => {
    await emu.clearRequests();
    await emu.token();
    const { requests, counters } = await emu.requests();
    expect(counters.tokenRequests).toBe(1);
    expect(counters.interfaceRequests).toBe(0);
    expect(requests[0]?.token).toMatchObject({ grant_type: 'client_credentials', client_id: emu.admin.clientId });
    expect(JSON.stringify(requests)).not.toContain(emu.admin.clientSecret);
  });
});

describe('interface authentication', () => {
  const path = () => `/rate-limit-policies/${emu.fixtures.policyIds[0]}`;

  it('401s a missing header', async () => {
    const res = await api(emu, path(), { token: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('401s garbage with "Invalid token."', async () => {
    const res = await api(emu, path(), { token: 'not-a-jwt' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid token.',
      errorCode: 'invalid_token',
    });
  });

  it('401s a forged signature', async () => {
    const [h, p] = (await emu.token('readOnly')).split('.');
    const claims = decodePart(p);
    claims.scope = emu.admin.scopes.join(' ');
    const forgedPayload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const [, , signature] = (await emu.token('readOnly')).split('.');
    const res = await api(emu, path(), { token: `${h}.${forgedPayload}.${signature}` });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ message: 'Invalid signature received for JSON Web Token validation.' });
  });

  it('401s a token of another emulator: one signing key per process, tokens bound by issuer and audience', async () => {
    const other = await startTestEmulator({ eventRate: 0 });
    try {
      const foreign = await other.token();
      const [h, p] = foreign.split('.');
      const jwks = async (url: string) => (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as unknown;
      expect(await jwks(other.url)).toEqual(await jwks(emu.url));
      expect(decodePart(h).kid).toBe(decodePart((await emu.token()).split('.')[0]).kid);
      expect(decodePart(p)).toMatchObject({ iss: `${other.url}/`, aud: `${other.url}/api/v2/` });
      expect(other.url).not.toBe(emu.url);
      const res = await api(emu, path(), { token: foreign });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Invalid token.',
        errorCode: 'invalid_token',
      });
      expect((await api(other, `/rate-limit-policies/${other.fixtures.policyIds[0]}`, { token: foreign })).status).toBe(
        200,
      );
    } finally {
      await other.close();
    }
  });

  it('401s an expired token', async () => {
    const expiring = await startTestEmulator({ eventRate: 0, tokenTtlSeconds: 0 });
    try {
      const res = await api(expiring, `/rate-limit-policies/${expiring.fixtures.policyIds[0]}`);
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ message: 'Expired token received for JSON Web Token validation.' });
    } finally {
      await expiring.close();
    }
  });

  it('401s revoked tokens until a new one is fetched', async () => {
    const token = await emu.token();
    expect((await api(emu, path(), { token })).status).toBe(200);
    await emu.revokeTokens();
    expect((await api(emu, path(), { token })).status).toBe(401);
    expect((await api(emu, path())).status).toBe(200);
  });

  it('403s a missing scope, naming it', async () => {
    const readOnly = await emu.token('readOnly');
    const res = await api(emu, `/connections/${emu.fixtures.databaseConnectionId}/users?email=alice%40example.com`, {
      token: readOnly,
      method: 'DELETE',
    });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient scope, expected any of: delete:users',
      errorCode: 'insufficient_scope',
    });
  });

  it('403s every endpoint for a token without scopes', async () => {
    const res = await fetch(`${emu.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: emu.readOnly.clientId,
        client_secret: emu.readOnly.clientSecret,
        audience: `${emu.url}/api/v2/`,
        scope: 'read:logs',
      }),
    });
    const { access_token: token } = (await res.json()) as { access_token: string };
    const cases: Array<[string, string]> = [
      [path(), 'read:rate_limit_policies'],
      ['/connections-directory-provisionings', 'read:directory_provisionings'],
      ['/events', 'read:events'],
      [`/users/${encodeURIComponent(emu.fixtures.userId)}/permissions`, 'read:users'],
    ];
    for (const [p, scope] of cases) {
      const answer = await api(emu, p, { token });
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ message: `Insufficient scope, expected any of: ${scope}` });
    }
  });
});
