import { constants, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
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

describe('private-key client authentication (api-notes: Tokens, client_assertion RS256/RS384/PS256)', () => {
  const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  const adminKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
  let keyed: TestEmulator;
  let jtis = 0;
  beforeAll(async () => {
    keyed = await startTestEmulator({ eventRate: 0, adminPublicKeys: [pem(adminKey.publicKey)] });
  });
  afterAll(() => keyed.close());

  function assertion(
    overrides: Record<string, unknown> = {},
    { alg = 'RS256', key = adminKey.privateKey }: { alg?: string; key?: KeyObject } = {},
  ): string {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: keyed.admin.clientId,
      sub: keyed.admin.clientId,
      aud: `${keyed.url}/`,
      iat: now,
      exp: now + 60,
      jti: `jti-${++jtis}`,
      ...overrides,
    };
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${encode({ alg, typ: 'JWT' })}.${encode(claims)}`;
    const hash = alg === 'RS384' ? 'sha384' : 'sha256';
    const signer =
      alg === 'PS256'
        ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
        : key;
    return `${input}.${sign(hash, Buffer.from(input), signer).toString('base64url')}`;
  }

  async function tokenWith(fields: Record<string, string>, path = '/oauth/token') {
    const res = await fetch(`${keyed.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: `${keyed.url}/api/v2/`, ...fields }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const withAssertion = (jwt: string, path?: string) =>
    tokenWith({ client_assertion_type: JWT_BEARER, client_assertion: jwt }, path);

  const AUD_REFUSED = "The client_assertion aud claim must be the tenant's URL with a trailing slash, as one string";
  const refused = (description: string) => ({
    status: 401,
    body: { error: 'invalid_client', error_description: description },
  });

  it.each(['RS256', 'RS384', 'PS256'])(
    'issues a token for a %s assertion, which the interface accepts',
    async (alg) => {
      const answer = await withAssertion(assertion({}, { alg }));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 86400 });
      const token = String(answer.body.access_token);
      const [, payload] = token.split('.');
      expect(decodePart(payload)).toMatchObject({ sub: `${keyed.admin.clientId}@clients` });
      expect((await api(keyed, `/rate-limit-policies/${keyed.fixtures.policyIds[0]}`, { token })).status).toBe(200);
    },
  );

  it('accepts the issuer URL as aud (origin and trailing slash), at /oauth/token and /oauth/token/', async () => {
    for (const [aud, path] of [
      [`${keyed.url}/`, '/oauth/token'],
      [`${keyed.url}/`, '/oauth/token/'],
      [`http://localhost:${keyed.port}/`, '/oauth/token'],
    ] as const) {
      expect((await withAssertion(assertion({ aud }), path)).status, JSON.stringify(aud)).toBe(200);
    }
  });

  it('enforces the documented limits: 2048 bytes, 64-character iss/sub/jti, exp within 300 s, 10 s of skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    const long = 'x'.repeat(65);
    const cases: Array<[string, string]> = [
      [assertion({ pad: 'p'.repeat(1600) }), 'The client_assertion must be at most 2048 bytes'],
      [assertion({ jti: long }), 'The client_assertion jti claim must be at most 64 characters'],
      [assertion({ iss: long, sub: long }), 'The client_assertion iss and sub claims must be at most 64 characters'],
      [assertion({ exp: now + 300 + 12 }), 'The client_assertion exp claim is more than 300 seconds ahead'],
      [assertion({ iat: now + 12 }), 'The client_assertion iat is in the future'],
      [assertion({ nbf: now + 12 }), 'The client_assertion is not valid yet'],
    ];
    for (const [jwt, description] of cases) expect(await withAssertion(jwt), description).toEqual(refused(description));
    // Within the skew: accepted.
    expect((await withAssertion(assertion({ exp: now + 300 + 5, iat: now + 5 }))).status).toBe(200);
    expect((await withAssertion(assertion({ jti: 'j'.repeat(64) }))).status).toBe(200);
  });

  it('records the assertion type, never the assertion', async () => {
    await keyed.clearRequests();
    const jwt = assertion();
    await withAssertion(jwt);
    const { requests } = await keyed.requests();
    expect(requests.at(-1)?.token).toMatchObject({
      client_assertion_type: JWT_BEARER,
      grant_type: 'client_credentials',
    });
    expect(JSON.stringify(requests)).not.toContain(jwt.split('.')[2]);
  });

  it('refuses a replayed jti (remembered until its exp)', async () => {
    const jwt = assertion({ jti: 'once' });
    expect((await withAssertion(jwt)).status).toBe(200);
    expect(await withAssertion(jwt)).toEqual(refused('The client_assertion jti has already been used'));
    expect(await withAssertion(assertion({ jti: 'once' }))).toEqual(
      refused('The client_assertion jti has already been used'),
    );
  });

  it('refuses bad assertions the OAuth way: 401 invalid_client with a description', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      [assertion({}, { key: otherKey.privateKey }), 'Invalid client_assertion signature'],
      [assertion({ sub: 'someone-else' }), 'The client_assertion iss and sub claims must both be the client id'],
      [assertion({ aud: `${keyed.url}/api/v2/` }), AUD_REFUSED],
      [assertion({ aud: `${keyed.url}/oauth/token` }), AUD_REFUSED],
      [assertion({ aud: `${keyed.url}/oauth/token/` }), AUD_REFUSED],
      [assertion({ aud: keyed.url }), AUD_REFUSED],
      [assertion({ aud: [`${keyed.url}/`] }), AUD_REFUSED],
      [assertion({ aud: 'http://127.0.0.1:1/' }), AUD_REFUSED],
      [assertion({ exp: undefined }), 'The client_assertion has no exp claim'],
      [assertion({ exp: now - 1 }), 'The client_assertion has expired'],
      [assertion({ exp: now + 3600 }), 'The client_assertion exp claim is more than 300 seconds ahead'],
      [assertion({ jti: undefined }), 'The client_assertion has no jti claim'],
      [assertion({}, { alg: 'HS256' }), 'Unsupported client_assertion algorithm; use RS256, RS384, PS256'],
      [
        assertion({ iss: keyed.readOnly.clientId, sub: keyed.readOnly.clientId }),
        'No public key is registered for this client',
      ],
      ['not-a-jwt', 'client_assertion is not a JWT'],
    ];
    for (const [jwt, description] of cases) expect(await withAssertion(jwt), description).toEqual(refused(description));
    expect(await tokenWith({ client_assertion_type: 'urn:other', client_assertion: assertion() })).toEqual(
      refused(`client_assertion_type must be ${JWT_BEARER}`),
    );
    expect(
      await tokenWith({ client_assertion_type: JWT_BEARER, client_assertion: assertion(), client_id: 'other' }),
    ).toEqual(refused('client_id does not match the client_assertion iss claim'));
    expect(
      await tokenWith({
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion(),
        client_secret: keyed.admin.clientSecret,
      }),
    ).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'Use one client authentication method: a client secret or a client assertion',
      },
    });
  });

  it('registers a key for either client through the control API; reset keeps only the start keys', async () => {
    const readOnly = () =>
      withAssertion(
        assertion({ iss: keyed.readOnly.clientId, sub: keyed.readOnly.clientId }, { key: otherKey.privateKey }),
      );
    expect((await readOnly()).status).toBe(401);
    // Registering a key takes the client's secret (issue 17 item 15).
    const secretOf = (client: string) =>
      client === 'readOnly' || client === keyed.readOnly.clientId
        ? keyed.readOnly.clientSecret
        : keyed.admin.clientSecret;
    const register = (body: { client: string; publicKey: string }) =>
      fetch(`${keyed.url}/__emulator/client-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, clientSecret: secretOf(body.client) }),
      });
    const added = await register({ client: 'readOnly', publicKey: pem(otherKey.publicKey) });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ clientId: keyed.readOnly.clientId, keys: 1 });
    const granted = await readOnly();
    expect(granted.status).toBe(200);
    expect(String(granted.body.scope).split(' ')).toEqual(keyed.readOnly.scopes);
    const second = await register({ client: keyed.admin.clientId, publicKey: pem(otherKey.publicKey) });
    expect(await second.json()).toEqual({ clientId: keyed.admin.clientId, keys: 2 });
    expect(await keyed.registerClientKey('admin', pem(otherKey.publicKey))).toBe(3);
    expect((await withAssertion(assertion({}, { key: otherKey.privateKey }))).status).toBe(200);

    const privatePem = otherKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const refusedKeys: Array<[{ client: string; publicKey: string }, string]> = [
      [
        { client: 'admin', publicKey: privatePem },
        'publicKey: this is a private key: register the public key (openssl rsa -in key.pem -pubout)',
      ],
      [{ client: 'admin', publicKey: 'garbage' }, 'publicKey: not a PEM public key'],
      [
        { client: 'nobody', publicKey: pem(otherKey.publicKey) },
        'client must be "admin", "readOnly" or one of their client ids',
      ],
    ];
    for (const [body, message] of refusedKeys) {
      const answer = await register(body);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: 'bad_request', message });
    }
    await keyed.reset();
    expect((await readOnly()).status).toBe(401);
    expect((await withAssertion(assertion({}, { key: otherKey.privateKey }))).status).toBe(401);
    expect((await withAssertion(assertion())).status).toBe(200);
  });

  it('refuses a short or non-RSA start key', async () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    await expect(startTestEmulator({ adminPublicKeys: [pem(small)] })).rejects.toThrow(
      'emulator option adminPublicKeys: the key has 1024 bits; at least 2048 are needed',
    );
    await expect(startTestEmulator({ adminPublicKeys: [pem(ec)] })).rejects.toThrow(
      'emulator option adminPublicKeys: an RSA key is needed (RS256, RS384, PS256), not ec',
    );
  });
});
