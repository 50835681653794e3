import { constants, generateKeyPairSync, verify } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { json, startLoopback } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;

withFileEmulator((each) => ({ emu, configDir: dir } = each));

/** The admin client exported in the shell, as a CI job or an earlier `export` leaves it. */
const adminEnv = () => ({ SVCADM_CONFIG_DIR: dir, ...emu.env });

async function addProfile(name: string, client: 'admin' | 'readOnly', extra: string[] = []) {
  const c = emu[client];
  const r = await runCli(
    ['profiles', 'add', name, '--domain', emu.url, '--client-id', c.clientId, '--client-secret-stdin', ...extra],
    { env: { SVCADM_CONFIG_DIR: dir }, stdin: c.clientSecret },
  );
  expect(r.code, r.stderr).toBe(0);
}

async function tokenRequestClients(): Promise<Array<string | undefined>> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.kind === 'token').map((r) => r.token?.client_id);
}

describe('a named profile is a unit (cli.md, revised precedence)', () => {
  it('-p ro never runs with the admin credentials a shell exported: one notice names what was ignored', async () => {
    await addProfile('ro', 'readOnly', ['--no-verify']);
    await emu.clearRequests();
    const r = await runCli(
      [
        '-p',
        'ro',
        'connections',
        'delete-user',
        emu.fixtures.databaseConnectionId,
        '--email',
        'alice@example.com',
        '--yes',
      ],
      { env: adminEnv() },
    );
    expect(r.code).toBe(4);
    const correlationId = /correlation id (\S+)/.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      "Using profile 'ro' as a whole: ignoring SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET from the environment.\n" +
        `Correlation id: ${correlationId}\n` +
        "svcadm: forbidden: Insufficient scope, expected any of: delete:users — grant the scope delete:users to the client in the tenant's settings; correlation id " +
        /correlation id (\S+)/.exec(r.stderr)?.[1] +
        '\n',
    );
    expect(await tokenRequestClients()).toEqual([emu.readOnly.clientId]);
  });

  it('SVCADM_PROFILE names a profile the same way', async () => {
    await addProfile('ro', 'readOnly');
    const r = await runCli(['auth', 'status', '-o', 'json'], { env: { ...adminEnv(), SVCADM_PROFILE: 'ro' } });
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout);
    expect(status).toMatchObject({
      profile: 'ro',
      client_id: emu.readOnly.clientId,
      sources: { tenant: 'profile ro', client_id: 'profile ro', credential: 'profile ro' },
      config_dir: dir,
    });
    expect(r.stderr).toContain("Using profile 'ro' as a whole: ignoring SVCADM_DOMAIN, SVCADM_CLIENT_ID");
  });

  it('flags still win over a named profile', async () => {
    await addProfile('ro', 'readOnly');
    const r = await runCli(['-p', 'ro', 'auth', 'status', '--client-id', emu.admin.clientId, '-q'], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_CLIENT_SECRET: emu.admin.clientSecret },
    });
    // The admin client is a flag; its secret was only in the environment, which a named profile shuts out; the
    // profile's own secret belongs to another client.
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `svcadm: no client secret for client ${emu.admin.clientId} on ${emu.url} — set SVCADM_CLIENT_SECRET, or save it with \`svcadm profiles add <name> … --client-secret-stdin\`\n`,
    );
  });

  it('without a named profile, the environment wins over the current profile, field by field', async () => {
    await addProfile('ro', 'readOnly');
    const r = await runCli(['auth', 'status', '-o', 'json'], { env: adminEnv() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      profile: null,
      client_id: emu.admin.clientId,
      sources: { tenant: 'environment', client_id: 'environment', credential: 'environment' },
    });
    // Issue 29, point 1: not silently.
    expect(r.stderr).toBe(
      "Using SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET from the environment over the current profile 'ro'.\n",
    );
  });
});

describe("a profile's secret goes only to its own token service (cli.md)", () => {
  it('SVCADM_AUTH_URL pointing elsewhere leaves the current profile secret unused: exit 3, nothing sent there', async () => {
    await addProfile('local', 'admin');
    const elsewhere = await startLoopback([(_req, res) => res.writeHead(500).end()]);
    try {
      const r = await runCli(['policies', 'get', 'rlp_x'], {
        env: { SVCADM_CONFIG_DIR: dir, SVCADM_AUTH_URL: elsewhere.url },
      });
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(
        `svcadm: no client secret for client ${emu.admin.clientId} on ${emu.url} — set SVCADM_CLIENT_SECRET, or save it with \`svcadm profiles add <name> … --client-secret-stdin\`\n`,
      );
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('--auth-url pointing elsewhere leaves a named profile secret unused', async () => {
    await addProfile('local', 'admin');
    const elsewhere = await startLoopback([(_req, res) => res.writeHead(500).end()]);
    try {
      const r = await runCli(['-p', 'local', 'auth', 'token', '--auth-url', elsewhere.url], {
        env: { SVCADM_CONFIG_DIR: dir },
      });
      expect(r.code).toBe(3);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('the same token service spelled as the profile has it is still its own', async () => {
    await addProfile('local', 'admin');
    const r = await runCli(['-p', 'local', 'auth', 'token', '--auth-url', emu.url], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(0);
  });
});

describe('auth status tells the truth', () => {
  it('says where each value came from, as a table', async () => {
    await addProfile('local', 'admin');
    const r = await runCli(['auth', 'status', '-o', 'table'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`Authenticated to ${emu.url}`);
    expect(lines.slice(1, 6)).toEqual([
      `tenant         ${emu.url}  (profile local)`,
      'profile        local',
      `client id      ${emu.admin.clientId}  (profile local)`,
      `credential     client secret, in ${join(dir, 'profiles.json')}  (profile local)`,
      `token service  ${emu.url}/oauth/token`,
    ]);
    // An admin client holds hundreds of scopes: the table names a dozen and the count; JSON has them all.
    const scopes = JSON.parse(
      (await runCli(['auth', 'status', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } })).stdout,
    ).scopes as string[];
    expect(scopes.length).toBeGreaterThan(12);
    const row = lines.find((l) => l.startsWith('scopes'));
    expect(row).toBe(
      `scopes         (${scopes.length}) ${scopes.slice(0, 12).join(' ')} … and ${scopes.length - 12} more (-o json lists them all)`,
    );
  });

  it('refuses a given token that is not even a JWT (exit 3), where it used to say "Authenticated"', async () => {
    const r = await runCli(['auth', 'status'], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url, SVCADM_TOKEN: 'garbage' },
    });
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'svcadm: the given token is not a JWT (three base64url parts: header, claims, signature) — check the token given with SVCADM_TOKEN\n',
    });
  });

  it('does not call a given JWT authenticated until --check has the interface accept it', async () => {
    const token = await emu.token('readOnly');
    const env = { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url };
    const plain = await runCli(['auth', 'status', '--token', token, '-o', 'table'], { env });
    expect(plain.code).toBe(0);
    expect(plain.stdout.split('\n')[0]).toBe(`Token for ${emu.url}  (not checked with the service: --check asks it)`);
    await emu.clearRequests();
    const checked = await runCli(['auth', 'status', '--token', token, '--check', '-o', 'json'], { env });
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ checked: true, token_source: 'given', client_id: null });
    expect((await emu.requests()).counters.interfaceRequests).toBe(1);
  });

  it('--check refuses a forged JWT with the interface answer (exit 3)', async () => {
    const token = await emu.token('readOnly');
    const [header, claims] = token.split('.');
    const r = await runCli(['auth', 'status', '--check', '--token', `${header}.${claims}.AAAA`], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'svcadm: authentication failed: Invalid signature received for JSON Web Token validation. — the token given with --token was refused: get a new one\n',
    );
  });

  it('--check obtains a new token even when one is cached', async () => {
    await addProfile('local', 'admin');
    await emu.clearRequests();
    const r = await runCli(['auth', 'status', '--check', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ checked: true, token_source: 'token service' });
    expect(await tokenRequestClients()).toEqual([emu.admin.clientId]);
  });

  it('auth errors name the real source of the credentials: a profile', async () => {
    // A profile saved with --no-verify and a secret the service does not know.
    const add = await runCli(
      [
        'profiles',
        'add',
        'stale',
        '--domain',
        emu.url,
        '--client-id',
        emu.admin.clientId,
        '--client-secret-stdin',
        '--no-verify',
      ],
      { env: { SVCADM_CONFIG_DIR: dir }, stdin: 'not-the-secret' },
    );
    expect(add.code, add.stderr).toBe(0);
    const r = await runCli(['-p', 'stale', 'auth', 'token'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^svcadm: token request refused: .+ — check the client id and secret of profile stale \(`svcadm -p stale profiles show stale`\)\n$/,
    );
  });

  // Issue 29, point 4: a refused audience is said to be the audience, wherever it came from.
  it('a refused audience names --audience and SVCADM_AUDIENCE, not the client id and secret', async () => {
    await addProfile('stale', 'admin', ['--no-verify']);
    const r = await runCli(['-p', 'stale', 'auth', 'token', '--audience', 'https://elsewhere.example.com/api/v2/'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "svcadm: token request refused: Service not enabled within domain: https://elsewhere.example.com/api/v2/ — the token service does not know the audience https://elsewhere.example.com/api/v2/ (given with --audience): give the API's identifier with --audience or SVCADM_AUDIENCE (behind a custom domain, the tenant's original domain: https://<tenant>/api/v2/)\n",
    );
  });
});

describe('private-key client authentication (api-notes: clients may authenticate with a signed JWT assertion)', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  function keyFile(mode = 0o600, pem = privatePem): string {
    const path = join(tempConfigDir(), 'client.pem');
    writeFileSync(path, pem, { mode });
    chmodSync(path, mode);
    return path;
  }

  it('profiles add stores the key path, never the key, and commands sign their token requests with it', async () => {
    await emu.registerClientKey('admin', publicPem);
    const key = keyFile();
    const add = await runCli(
      [
        'profiles',
        'add',
        'signed',
        '--domain',
        emu.url,
        '--client-id',
        emu.admin.clientId,
        '--client-assertion-key',
        key,
      ],
      { env: { SVCADM_CONFIG_DIR: dir } },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/^Verified: the token service issued a token with \d+ scope\(s\)\.\n/);
    const stored = readFileSync(join(dir, 'profiles.json'), 'utf8');
    expect(stored).toContain(JSON.stringify(key));
    expect(stored).not.toContain('PRIVATE KEY');
    expect(stored).not.toContain('clientSecret');
    const status = await runCli(['auth', 'status', '--check', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      credential: `private key ${key} (RS256)`,
      token_source: 'token service',
    });
  });

  it('works from the environment too, with RS384', async () => {
    const rs384 = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await emu.registerClientKey('readOnly', rs384.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const key = keyFile(0o600, rs384.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    const r = await runCli(['auth', 'token'], {
      env: {
        SVCADM_CONFIG_DIR: dir,
        SVCADM_DOMAIN: emu.url,
        SVCADM_CLIENT_ID: emu.readOnly.clientId,
        SVCADM_CLIENT_ASSERTION_KEY: key,
        SVCADM_CLIENT_ASSERTION_ALG: 'RS384',
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });

  it('refuses a key others can read, as ssh does (exit 2, nothing sent)', async () => {
    const key = keyFile(0o644);
    await emu.clearRequests();
    const r = await runCli(['auth', 'token', '--client-id', emu.admin.clientId, '--client-assertion-key', key], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url },
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: the private key ${key} can be read by others (mode 0644) — make it private: chmod 600 '${key}'\n`,
    });
    expect((await emu.requests()).counters.tokenRequests).toBe(0);
  });

  it('a key the tenant does not know is refused, naming the flag it came from (exit 3)', async () => {
    const key = keyFile();
    const r = await runCli(['auth', 'token', '--client-id', emu.admin.clientId, '--client-assertion-key', key], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^svcadm: token request refused: .+ — check --client-id and --client-assertion-key\n$/);
  });

  it('sends a short-lived assertion to /oauth/token: iss = sub = client id, aud = the issuer URL, a jti, exp within 60 s', async () => {
    const token = await emu.token();
    const local = await startLoopback([json(200, { access_token: token, token_type: 'Bearer', expires_in: 60 })]);
    try {
      const key = keyFile(0o600);
      const r = await runCli(
        ['auth', 'token', '--client-id', 'c1', '--client-assertion-key', key, '--client-assertion-alg', 'PS256'],
        {
          env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: local.url },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const form = new URLSearchParams(local.requests[0]?.body ?? '');
      expect(form.get('client_secret')).toBeNull();
      expect(form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      const [header, claims, signature] = (form.get('client_assertion') ?? '').split('.');
      const decode = (part?: string) => JSON.parse(Buffer.from(part ?? '', 'base64url').toString());
      expect(decode(header)).toEqual({ alg: 'PS256', typ: 'JWT' });
      const body = decode(claims);
      expect(local.requests[0]?.url).toBe('/oauth/token');
      expect(body).toMatchObject({ iss: 'c1', sub: 'c1', aud: `${local.url}/` });
      expect(body.jti).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.exp - body.iat).toBe(60);
      const verified = verify(
        'sha256',
        Buffer.from(`${header}.${claims}`),
        { key: keys.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
        Buffer.from(signature ?? '', 'base64url'),
      );
      expect(verified).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('with --auth-url elsewhere, the assertion is for that token service: aud = its origin with a slash', async () => {
    const token = await emu.token();
    const local = await startLoopback([json(200, { access_token: token, token_type: 'Bearer', expires_in: 60 })]);
    try {
      const args = ['auth', 'token', '--client-id', 'c1', '--client-assertion-key', keyFile(0o600)];
      const r = await runCli([...args, '--auth-url', local.url], {
        env: { SVCADM_CONFIG_DIR: dir, SVCADM_DOMAIN: emu.url },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(local.requests.map((q) => q.url)).toEqual(['/oauth/token']);
      const claims = (new URLSearchParams(local.requests[0]?.body ?? '').get('client_assertion') ?? '').split('.')[1];
      expect(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString())).toMatchObject({ aud: `${local.url}/` });
    } finally {
      await local.close();
    }
  });
});
