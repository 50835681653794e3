import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { answerJson, CLIENT_ID, CLIENT_SECRET, startHostileServer } from '../helpers/hostile-server.js';
import { json, refusedPort, startLoopback } from '../helpers/loopback-server.js';
import { configWithProfiles, type ProfileSpec, runCli } from '../helpers/run-cli.js';

/**
 * Several tenants at once (cli.md "Many tenants"). One emulator per tenant, each on its own port: each has its own
 * token service, rate limiter, faults and request log, as separate tenants do (one emulator serving several tenants
 * by Host would share them). Profiles name them in one config folder.
 */
const emus: TestEmulator[] = [];
let a: TestEmulator;
let b: TestEmulator;
let c: TestEmulator;
beforeAll(async () => {
  for (let i = 0; i < 3; i++) emus.push(await startTestEmulator());
  [a, b, c] = emus as [TestEmulator, TestEmulator, TestEmulator];
});
afterAll(async () => {
  await Promise.all(emus.map((emu) => emu.close()));
});
beforeEach(async () => {
  await Promise.all(emus.map((emu) => emu.reset()));
});

const admin = (emu: TestEmulator): ProfileSpec => ({ domain: emu.url, ...emu.admin });
const readOnly = (emu: TestEmulator): ProfileSpec => ({ domain: emu.url, ...emu.readOnly });
const host = (emu: TestEmulator) => new URL(emu.url).host;
const POLICY = 'rlp_lxp8z12v65g6ivg32rm1u2';
const FORBIDDEN = {
  statusCode: 403,
  error: 'Forbidden',
  message: 'Insufficient scope, expected any of: read:rate_limit_policies',
  errorCode: 'insufficient_scope',
};

async function apiRequests(emu: TestEmulator): Promise<number> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.kind !== 'token').length;
}

async function tokenRequests(emu: TestEmulator): Promise<number> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.kind === 'token').length;
}

describe('choosing the tenants', () => {
  it.each([
    [['--profiles', ''], "svcadm: --profiles needs profile names or patterns separated by commas, got ''\n"],
    [['--profiles', 'dev,'], "svcadm: --profiles needs profile names or patterns separated by commas, got 'dev,'\n"],
    [['--profiles', 'stage-*'], "svcadm: --profiles 'stage-*' matches no profile; the profiles are: dev, prod\n"],
    [
      ['--profiles', '*', '-p', 'dev'],
      'svcadm: --profiles cannot be combined with -p: each profile is taken as a unit — drop -p, or run one tenant with -p <name>\n',
    ],
    [
      ['--profiles', '*', '--domain', 'x.example.com'],
      'svcadm: --profiles cannot be combined with --domain: each profile is taken as a unit — drop --domain, or run one tenant with -p <name>\n',
    ],
    [['--profiles', '*', '--parallel', '0'], 'svcadm: --parallel must be from 1 to 64, got 0\n'],
    [
      ['--profiles', 'd?v', 'api', '-X', 'DELETE', '/connections/c/users', '--yes'],
      "svcadm: --profiles does not apply to 'svcadm api': it runs only GET across tenants, not DELETE — name one tenant with -p <profile>\n",
    ],
    [
      ['--profiles', 'dev', 'auth', 'token'],
      "svcadm: --profiles does not apply to 'svcadm auth token': it runs against one tenant — name one tenant with -p <profile>\n",
    ],
  ])('%j: exit 2, one line, nothing sent', async (words, stderr) => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const command = words.includes('api') || words.includes('auth') ? [] : ['policies', 'list'];
    const r = await runCli([...words, ...command], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({ code: 2, stdout: '', stderr });
    expect((await a.requests()).requests).toEqual([]);
    expect((await b.requests()).requests).toEqual([]);
  });

  it('SVCADM_PROFILES stands in for --profiles; with -p it is exit 2, and a command of one tenant refuses it', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const env = { SVCADM_CONFIG_DIR: dir, SVCADM_PROFILES: 'prod' };
    const r = await runCli(['policies', 'get', POLICY, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((e: { profile: string }) => e.profile)).toEqual(['prod']);
    expect(await runCli(['-p', 'dev', 'policies', 'list'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: SVCADM_PROFILES cannot be combined with -p: each profile is taken as a unit — unset SVCADM_PROFILES to run one tenant\n',
    });
    expect(await runCli(['auth', 'token'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: SVCADM_PROFILES is set, and this command runs against one tenant — unset SVCADM_PROFILES, or name one with -p\n',
    });
    // Local commands do not reach for a tenant: the variable is nothing to them.
    expect((await runCli(['profiles', 'list', '-o', 'json'], { env })).code).toBe(0);
    expect(await apiRequests(a)).toBe(0);
  });

  it('each profile is a unit: the credential variables of the shell are ignored, said once', async () => {
    const dir = configWithProfiles({ dev: readOnly(a), prod: readOnly(b) });
    const r = await runCli(['--profiles', 'dev,prod', 'policies', 'get', POLICY, '-o', 'json'], {
      env: { SVCADM_CONFIG_DIR: dir, ...c.env, SVCADM_PROFILE: 'dev' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'Using each profile as a whole: ignoring SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET from the environment.\n',
    );
    expect(await tokenRequests(c)).toBe(0);
    const { requests } = await a.requests();
    expect(requests.filter((q) => q.kind === 'token').map((q) => q.token?.client_id)).toEqual([a.readOnly.clientId]);
  });

  it('matched profiles run in name order, each once, whatever order the patterns name them in', async () => {
    const dir = configWithProfiles({ 'prod-us': admin(c), 'prod-eu': admin(b), dev: admin(a) });
    const r = await runCli(['--profiles', 'prod-*,dev,prod-eu', 'policies', 'get', POLICY, '-o', 'json'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((e: { profile: string; domain: string }) => [e.profile, e.domain])).toEqual([
      ['dev', host(a)],
      ['prod-eu', host(b)],
      ['prod-us', host(c)],
    ]);
  });
});

describe('outputs', () => {
  it('table: a leading PROFILE column, rows grouped by profile in profile order', async () => {
    const dir = configWithProfiles({ prod: admin(b), dev: admin(a) });
    const r = await runCli(['--profiles', '*', 'policies', 'list', '--take', '2', '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'PROFILE  ID                          CONSUMER SELECTOR                           ACTION  LIMIT',
        'dev      rlp_lxp8z12v65g6ivg32rm1u2  default                                     allow   -',
        'dev      rlp_9xht4sn0o7makc8ait      client_id:j9em17e5pqc2g1s0gzgdsaxk36me25nr  block   100/s',
        'prod     rlp_lxp8z12v65g6ivg32rm1u2  default                                     allow   -',
        'prod     rlp_9xht4sn0o7makc8ait      client_id:j9em17e5pqc2g1s0gzgdsaxk36me25nr  block   100/s',
        '',
      ].join('\n'),
    );
    // Each tenant's next page pins its own profile.
    expect(r.stderr).toMatch(
      /^dev: Next page: svcadm -p dev -o table policies list --from \S+ --take 2\nprod: Next page: svcadm -p prod -o table policies list --from \S+ --take 2\n$/,
    );
  });

  it('table: columns as wide as the widest cell of any tenant, a later one included; on a terminal one layout for all', async () => {
    const user = (user_id: string, connection: string, name: string) => ({
      user_id,
      name,
      email: 'alice@example.com',
      identities: [{ connection, provider: 'auth0' }],
    });
    const one = await startHostileServer({ api: answerJson(200, [user('u1', 'db', 'Ann Example')]) });
    const two = await startHostileServer({
      api: answerJson(200, [user('auth0|a-much-longer-user-id-0002', 'Username-Password-Authentication', 'Bob')]),
    });
    const three = await startHostileServer({ api: answerJson(200, []) });
    const servers = [one, two, three];
    try {
      const tenant = (server: { url: string }) => ({
        domain: server.url,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
      });
      const dir = configWithProfiles({ 'alpha-tenant': tenant(one), b: tenant(two), c: tenant(three) });
      const words = ['--profiles', '*', 'users', 'find', '--email', 'alice@example.com', '-o', 'table'];
      const r = await runCli(words, { env: { SVCADM_CONFIG_DIR: dir, NO_COLOR: '1' } });
      expect(r).toEqual({
        code: 0,
        stdout: [
          'PROFILE       USER ID                           CONNECTION                        NAME         CREATED (UTC)',
          'alpha-tenant  u1                                db                                Ann Example  -',
          'b             auth0|a-much-longer-user-id-0002  Username-Password-Authentication  Bob          -',
          '',
        ].join('\n'),
        stderr: 'c: No user has the e-mail alice@example.com.\n',
      });
      const narrow = await runCli(words, {
        env: { SVCADM_CONFIG_DIR: dir, NO_COLOR: '1' },
        tty: { stdout: true },
        columns: 92,
      });
      expect(narrow).toEqual({
        code: 0,
        stdout: [
          'PROFILE       USER ID                           CONNECTION                        NAME',
          'alpha-tenant  u1                                db                                Ann Examp…',
          'b             auth0|a-much-longer-user-id-0002  Username-Password-Authentication  Bob',
          '',
        ].join('\n'),
        stderr: 'c: No user has the e-mail alice@example.com.\nHidden to fit: CREATED (UTC) (-o wide shows all)\n',
      });
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  it('table: a single resource shows its profile first', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const r = await runCli(['--profiles', '*', 'policies', 'get', POLICY, '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    const blocks = r.stdout.split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(/^Rate limit policy.*\n\s*profile\s+dev\n\s*id\s+rlp_lxp8z12v65g6ivg32rm1u2\n/);
    expect(blocks[1]).toMatch(/^Rate limit policy.*\n\s*profile\s+prod\n\s*id\s+rlp_lxp8z12v65g6ivg32rm1u2\n/);
  });

  it('json: one array in profile order; each result is exactly what the command prints for that tenant alone', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const env = { SVCADM_CONFIG_DIR: dir };
    const r = await runCli(['--profiles', '*', 'users', 'find', '--email', 'alice@example.com', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const alone = await runCli(['-p', 'prod', 'users', 'find', '--email', 'alice@example.com', '-o', 'json'], { env });
    const doc = JSON.parse(r.stdout);
    expect(doc).toHaveLength(2);
    expect(doc[1]).toEqual({ profile: 'prod', domain: host(b), result: JSON.parse(alone.stdout) });
    expect(Object.keys(doc[0])).toEqual(['profile', 'domain', 'result']);
    // --query shapes each tenant's result, as it would alone.
    const q = await runCli(['--profiles', '*', 'policies', 'get', POLICY, '--query', 'id'], { env });
    expect(JSON.parse(q.stdout)).toEqual([
      { profile: 'dev', domain: host(a), result: POLICY },
      { profile: 'prod', domain: host(b), result: POLICY },
    ]);
  });

  it('yaml: the same array', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const r = await runCli(['--profiles', '*', 'policies', 'get', POLICY, '--query', 'id', '-o', 'yaml'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r).toEqual({
      code: 0,
      stdout: `- profile: dev\n  domain: ${host(a)}\n  result: ${POLICY}\n- profile: prod\n  domain: ${host(b)}\n  result: ${POLICY}\n`,
      stderr: '',
    });
  });

  it('raw: one value a line, <profile> and a tab before it; a value never spans lines nor holds a raw tab; a failed tenant one JSON line on stderr', async () => {
    const server = await startHostileServer({
      api: answerJson(200, [
        { user_id: 'u1\tx\ny\x1b[2J', email: 'alice@example.com' },
        { user_id: 'u2', email: 'alice@example.com' },
      ]),
    });
    const down = await refusedPort();
    try {
      const dir = configWithProfiles({
        evil: { domain: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
        good: admin(a),
        down: { domain: `http://127.0.0.1:${down}`, clientId: 'x', clientSecret: 'y' },
      });
      const words = ['users', 'find', '--email', 'alice@example.com', '-o', 'raw', '--max-retries', '0'];
      const r = await runCli(['--profiles', '*', '--parallel', '1', ...words, '--query', '[].user_id'], {
        env: { SVCADM_CONFIG_DIR: dir },
      });
      expect(r.code).toBe(9);
      expect(r.stdout).toBe('evil\tu1\\tx\\ny\\x1b[2J\nevil\tu2\ngood\tdb|user-0001\ngood\tdb|user-0036\n');
      expect(r.stderr).toBe(
        `{"profile":"down","error":{"status":null,"code":"network","message":"connection refused by 127.0.0.1:${down}","exit_code":7}}\n` +
          '{"error":{"status":null,"code":"tenants_failed","message":"1 of 3 tenants failed: down (exit 7)","exit_code":9}}\n',
      );
      // Anything but a scalar is one line of compact JSON after the tab.
      const whole = await runCli(['--profiles', 'good', ...words, '--query', '[0].{id: user_id}'], {
        env: { SVCADM_CONFIG_DIR: dir },
      });
      expect(whole).toEqual({ code: 0, stdout: 'good\t{"id":"db|user-0001"}\n', stderr: '' });
    } finally {
      await server.close();
    }
  });

  it('ndjson: one {"profile","item"} line per item, each tenant in its own order', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const r = await runCli(['--profiles', '*', 'policies', 'list', '--all', '-o', 'ndjson', '--query', 'id'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const alone = await runCli(['-p', 'dev', 'policies', 'list', '--all', '-o', 'ndjson', '--query', 'id'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    const ids = alone.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((l) => l.profile === 'dev').map((l) => l.item)).toEqual(ids);
    expect(lines.filter((l) => l.profile === 'prod').map((l) => l.item)).toEqual(ids);
    expect(lines).toHaveLength(ids.length * 2);
  });
});

describe('every read runs across tenants, each result what the command prints alone', () => {
  it.each([
    [['policies', 'list', '--all']],
    [['provisionings', 'list', '--take', '2']],
    [['users', 'permissions', 'USER', '--per-page', '3']],
    [['users', 'find', '--email', 'alice@example.com']],
    [['connections', 'list', '--all']],
    [['api', '/rate-limit-policies/rlp_lxp8z12v65g6ivg32rm1u2']],
  ])('%j', async (words) => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const env = { SVCADM_CONFIG_DIR: dir };
    const command = words.map((w) => (w === 'USER' ? a.fixtures.userId : w));
    const r = await runCli(['--profiles', '*', ...command, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const alone = await runCli(['-p', 'prod', ...command, '-o', 'json'], { env });
    const doc = JSON.parse(r.stdout) as Array<{ profile: string; result: unknown }>;
    expect(doc.map((e) => e.profile)).toEqual(['dev', 'prod']);
    // Checkpoints carry the time they were made: compare what does not.
    const withoutNext = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/"next":"[^"]*"/g, '"next":""'));
    expect(withoutNext(doc[1]?.result)).toEqual(withoutNext(JSON.parse(alone.stdout)));
  });

  it('auth status: each tenant its own client and scopes', async () => {
    const dir = configWithProfiles({ dev: admin(a), ro: readOnly(b) });
    const r = await runCli(['--profiles', '*', 'auth', 'status', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Array<{ profile: string; result: Record<string, unknown> }>;
    expect(
      doc.map((e) => [
        e.profile,
        JSON.stringify(e.result).includes(e.profile === 'dev' ? a.admin.clientId : b.readOnly.clientId),
      ]),
    ).toEqual([
      ['dev', true],
      ['ro', true],
    ]);
  });
});

describe('tenants that fail differently in one run', () => {
  let limited: TestEmulator;
  beforeAll(async () => {
    limited = await startTestEmulator();
  });
  afterAll(async () => {
    await limited.close();
  });

  /** ok: answers; unauthorized: a secret the token service refuses (401); forbidden: a 403 naming the scope; down: nothing listens; limited: 429 after its retries. */
  async function mixedTenants() {
    await limited.reset();
    const down = await refusedPort();
    const dir = configWithProfiles({
      ok: admin(a),
      unauthorized: { ...admin(b), clientSecret: 'not-the-secret' },
      forbidden: readOnly(c),
      down: { domain: `http://127.0.0.1:${down}`, clientId: 'x', clientSecret: 'y' },
      limited: admin(limited),
    });
    await c.failNext({ path: '/rate-limit-policies', status: 403, body: FORBIDDEN });
    await limited.rateLimitNext('/rate-limit-policies', 2, 1);
    return { dir, down };
  }

  it('table: the others print, each failure is one line with its hint, exit 9 names each failed tenant', async () => {
    const { dir, down } = await mixedTenants();
    const r = await runCli(['--profiles', '*', '--max-retries', '1', 'policies', 'get', POLICY, '-o', 'table', '-q'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(9);
    expect(r.stdout).toMatch(/^Rate limit policy.*\n\s*profile\s+ok\n\s*id\s+rlp_lxp8z12v65g6ivg32rm1u2\n/);
    expect(r.stdout.match(/profile\s/g)).toHaveLength(1);
    const lines = r.stderr.trimEnd().split('\n');
    // The failures come as the tenants end; the summary last.
    expect(lines.slice(0, -1).sort()).toEqual([
      `svcadm: down: connection refused by 127.0.0.1:${down} (after 1 retry)`,
      "svcadm: forbidden: forbidden: Insufficient scope, expected any of: read:rate_limit_policies — grant the scope read:rate_limit_policies to the client in the tenant's settings",
      'svcadm: limited: rate limited: Global limit has been reached (still 429 after 1 retry) — wait and run again, or raise --max-retries',
      'svcadm: unauthorized: token request refused: Unauthorized — check the client id and secret of profile unauthorized (`svcadm -p unauthorized -o table profiles show unauthorized`)',
    ]);
    expect(lines.at(-1)).toBe(
      'svcadm: 4 of 5 tenants failed: down (exit 7), forbidden (exit 4), limited (exit 6), unauthorized (exit 3)',
    );
  });

  it('json: one entry per tenant in profile order, a failure as its envelope; the last stderr line the summary', async () => {
    const { dir } = await mixedTenants();
    const r = await runCli(['--profiles', '*', '--max-retries', '1', 'policies', 'get', POLICY, '--query', 'id'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(9);
    const doc = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(
      doc.map((e) => [e.profile, 'result' in e ? e.result : (e.error as { exit_code: number }).exit_code]),
    ).toEqual([
      ['down', 7],
      ['forbidden', 4],
      ['limited', 6],
      ['ok', POLICY],
      ['unauthorized', 3],
    ]);
    expect(doc[1]).toEqual({
      profile: 'forbidden',
      domain: host(c),
      error: {
        status: 403,
        code: 'insufficient_scope',
        message: 'forbidden: Insufficient scope, expected any of: read:rate_limit_policies',
        hint: "grant the scope read:rate_limit_policies to the client in the tenant's settings",
        exit_code: 4,
      },
    });
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1) ?? '')).toEqual({
      error: {
        status: null,
        code: 'tenants_failed',
        message: '4 of 5 tenants failed: down (exit 7), forbidden (exit 4), limited (exit 6), unauthorized (exit 3)',
        exit_code: 9,
      },
    });
  });

  it('ndjson: a {"profile","error"} line per failure among the items', async () => {
    const { dir } = await mixedTenants();
    const r = await runCli(
      ['--profiles', '*', '--max-retries', '1', 'policies', 'get', POLICY, '-o', 'ndjson', '--query', 'id'],
      {
        env: { SVCADM_CONFIG_DIR: dir },
      },
    );
    expect(r.code).toBe(9);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.profile, 'item' in l ? l.item : (l.error as { code: string }).code]).sort()).toEqual([
      ['down', 'network'],
      ['forbidden', 'insufficient_scope'],
      ['limited', 'too_many_requests'],
      ['ok', POLICY],
      ['unauthorized', 'access_denied'],
    ]);
  });

  it('every tenant failed alike: their common code, not 9', async () => {
    const dir = configWithProfiles({
      dev: { ...admin(a), clientSecret: 'nope' },
      prod: { ...admin(b), clientSecret: 'nope' },
    });
    const r = await runCli(['--profiles', '*', 'policies', 'get', POLICY, '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(3);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('svcadm: 2 of 2 tenants failed: dev (exit 3), prod (exit 3)');
  });

  it('--fail-fast: the first failure stops the others; those not run are named', async () => {
    const dir = configWithProfiles({ a: { ...admin(a), clientSecret: 'nope' }, b: admin(b), c: admin(c) });
    const r = await runCli(
      ['--profiles', '*', '--parallel', '1', '--fail-fast', 'policies', 'get', POLICY, '-o', 'json'],
      {
        env: { SVCADM_CONFIG_DIR: dir },
      },
    );
    expect(r.code).toBe(3);
    const cancelled = (profile: string, emu: TestEmulator) => ({
      profile,
      domain: host(emu),
      error: { status: null, code: 'cancelled', message: 'stopped by --fail-fast: a failed', exit_code: null },
    });
    const doc = JSON.parse(r.stdout) as Array<{ profile: string; error: { code: string } }>;
    expect(doc.map((e) => [e.profile, e.error.code])).toEqual([
      ['a', 'access_denied'],
      ['b', 'cancelled'],
      ['c', 'cancelled'],
    ]);
    expect(doc.slice(1)).toEqual([cancelled('b', b), cancelled('c', c)]);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1) ?? '').error.message).toBe(
      '1 of 3 tenants failed: a (exit 3); stopped by --fail-fast: b, c',
    );
    expect((await b.requests()).requests).toEqual([]);
    expect((await c.requests()).requests).toEqual([]);
  });

  it("--fail-fast in yaml, ndjson and a table: each tenant stopped is reported as cancelled; the exit stays the failure's", async () => {
    const dir = configWithProfiles({ a: { ...admin(a), clientSecret: 'nope' }, b: admin(b), c: admin(c) });
    const run = (...format: string[]) =>
      runCli(['--profiles', '*', '--parallel', '1', '--fail-fast', 'policies', 'get', POLICY, '-q', ...format], {
        env: { SVCADM_CONFIG_DIR: dir, NO_COLOR: '1' },
      });
    const yaml = await run('-o', 'yaml');
    expect(yaml.code).toBe(3);
    expect(yaml.stdout).toContain(
      [
        `- profile: b`,
        `  domain: ${host(b)}`,
        '  error:',
        '    status: null',
        '    code: cancelled',
        '    message: "stopped by --fail-fast: a failed"',
        '    exit_code: null',
        `- profile: c`,
      ].join('\n'),
    );
    const ndjson = await run('-o', 'ndjson');
    expect(ndjson.code).toBe(3);
    expect(ndjson.stdout.trimEnd().split('\n').slice(1)).toEqual([
      '{"profile":"b","error":{"status":null,"code":"cancelled","message":"stopped by --fail-fast: a failed","exit_code":null}}',
      '{"profile":"c","error":{"status":null,"code":"cancelled","message":"stopped by --fail-fast: a failed","exit_code":null}}',
    ]);
    const table = await run('-o', 'table');
    expect(table.code).toBe(3);
    expect(table.stdout).toBe('');
    expect(table.stderr.trimEnd().split('\n').slice(1)).toEqual([
      'svcadm: b: stopped by --fail-fast: a failed',
      'svcadm: c: stopped by --fail-fast: a failed',
      'svcadm: 1 of 3 tenants failed: a (exit 3); stopped by --fail-fast: b, c',
    ]);
  });

  it('without --fail-fast a failure stops nothing', async () => {
    const dir = configWithProfiles({ a: { ...admin(a), clientSecret: 'nope' }, b: admin(b), c: admin(c) });
    const r = await runCli(['--profiles', '*', '--parallel', '1', 'policies', 'get', POLICY, '--query', 'id'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(9);
    expect(JSON.parse(r.stdout).map((e: { result?: string }) => e.result)).toEqual([undefined, POLICY, POLICY]);
  });
});

describe('the temporary folder where each result waits (issue 38 point 1)', () => {
  it('TMPDIR missing, or not a folder: exit 74, one line naming it, nothing sent', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const base = mkdtempSync(join(tmpdir(), 'svcadm-test-tmp-'));
    writeFileSync(join(base, 'file'), '');
    for (const [tmp, why] of [
      [join(base, 'missing'), 'no such folder (ENOENT)'],
      [join(base, 'file'), 'not a folder (ENOTDIR)'],
    ]) {
      const r = await runCli(['--profiles', '*', 'policies', 'list', '-o', 'table'], {
        env: { SVCADM_CONFIG_DIR: dir, TMPDIR: tmp },
      });
      expect(r).toEqual({
        code: 74,
        stdout: '',
        stderr: `svcadm: cannot keep the tenants' results in the temporary folder ${tmp}: ${why} — set TMPDIR to a writable folder with room for the output\n`,
      });
      const json = await runCli(['--profiles', '*', 'policies', 'list', '-o', 'json'], {
        env: { SVCADM_CONFIG_DIR: dir, TMPDIR: tmp },
      });
      expect(json.code).toBe(74);
      expect(JSON.parse(json.stderr).error.code).toBe('output_failed');
    }
    expect(await apiRequests(a)).toBe(0);
    expect(await tokenRequests(a)).toBe(0);
  });

  it('a finished tenant waits in a 0600 file of a 0700 folder under TMPDIR; the folder is gone after the run, failed or not', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'svcadm-test-tmp-'));
    const seen: string[] = [];
    const server = await startHostileServer({
      api: (_req, res) => {
        // `a` is done (--parallel 1): its result waits in the folder while `b` runs.
        for (const folder of readdirSync(tmp)) {
          seen.push(`${folder.replace(/-\w+$/, '-*')} ${(statSync(join(tmp, folder)).mode & 0o777).toString(8)}`);
          for (const file of readdirSync(join(tmp, folder)).sort()) {
            seen.push(`${file} ${(statSync(join(tmp, folder, file)).mode & 0o777).toString(8)}`);
          }
        }
        answerJson(200, [])(_req, res);
      },
    });
    try {
      const dir = configWithProfiles({
        a: admin(a),
        b: { domain: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
        c: { ...admin(c), clientSecret: 'nope' },
      });
      const r = await runCli(['--profiles', '*', '--parallel', '1', 'users', 'find', '--email', 'alice@example.com'], {
        env: { SVCADM_CONFIG_DIR: dir, TMPDIR: tmp },
      });
      expect(r.code).toBe(9);
      expect(JSON.parse(r.stdout).map((e: { profile: string }) => e.profile)).toEqual(['a', 'b', 'c']);
      expect(seen).toEqual(['svcadm-tenants-* 700', '0000.json 600', '0001.json 600']);
      expect(readdirSync(tmp)).toEqual([]);
      for (const format of ['table', 'yaml']) {
        const t = await runCli(['--profiles', '*', 'users', 'find', '--email', 'alice@example.com', '-o', format], {
          env: { SVCADM_CONFIG_DIR: dir, TMPDIR: tmp },
        });
        expect(t.code).toBe(9);
        expect(readdirSync(tmp)).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});

describe('running', () => {
  it('each tenant has its own token and token cache entry: a second run asks no token service again', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const env = { SVCADM_CONFIG_DIR: dir };
    expect((await runCli(['--profiles', '*', 'policies', 'get', POLICY], { env })).code).toBe(0);
    expect([await tokenRequests(a), await tokenRequests(b)]).toEqual([1, 1]);
    const cache = JSON.parse(readFileSync(join(dir, 'token-cache.json'), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(cache).match(/oauth\/token/g)?.length ?? Object.keys(cache).length).toBeGreaterThanOrEqual(2);
    await a.clearRequests();
    await b.clearRequests();
    expect((await runCli(['--profiles', '*', 'policies', 'get', POLICY], { env })).code).toBe(0);
    expect([await tokenRequests(a), await tokenRequests(b)]).toEqual([0, 0]);
    expect([await apiRequests(a), await apiRequests(b)]).toEqual([1, 1]);
  });

  it('twenty tenants at once: no warning about listeners on stderr', async () => {
    const profiles = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`t${String(i).padStart(2, '0')}`, admin(a)]),
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const r = await runCli(['--profiles', '*', '--parallel', '20', 'policies', 'get', POLICY, '--query', 'id'], {
        env: { SVCADM_CONFIG_DIR: configWithProfiles(profiles) },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(20);
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('--parallel bounds the tenants at once: with 2, two tenants are under way before a third starts', async () => {
    const tokens: string[] = [];
    const held: Array<() => void> = [];
    let tokensWhenTwoHeld = -1;
    const server = await startLoopback([
      (req, res) => {
        if (req.url.startsWith('/oauth/token')) {
          tokens.push(new URLSearchParams(req.body).get('client_id') ?? '');
          return json(200, { access_token: `tok-${tokens.length}`, token_type: 'Bearer', expires_in: 3600 })(req, res);
        }
        held.push(() => json(200, { id: 'rlp_1' })(req, res));
        if (held.length === 2) {
          tokensWhenTwoHeld = tokens.length;
          for (const release of held.splice(0)) release();
        } else if (tokens.length === 4 && held.length === 1) for (const release of held.splice(0)) release();
      },
    ]);
    try {
      const profiles = Object.fromEntries(
        ['t1', 't2', 't3', 't4'].map((name) => [
          name,
          { domain: server.url, clientId: `c-${name}`, clientSecret: 's' },
        ]),
      );
      const r = await runCli(['--profiles', '*', '--parallel', '2', 'policies', 'get', 'rlp_1', '--query', 'id'], {
        env: { SVCADM_CONFIG_DIR: configWithProfiles(profiles) },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(tokensWhenTwoHeld).toBe(2);
      expect(tokens.sort()).toEqual(['c-t1', 'c-t2', 'c-t3', 'c-t4']);
    } finally {
      await server.close();
    }
  });
});

describe('connections delete-user across tenants', () => {
  const deleteWords = (emu: TestEmulator, ...extra: string[]) => [
    'connections',
    'delete-user',
    emu.fixtures.databaseConnectionId,
    '--email',
    'alice@example.com',
    ...extra,
  ];

  async function deletes(emu: TestEmulator): Promise<number> {
    const { requests } = await emu.requests();
    return requests.filter((r) => r.method === 'DELETE').length;
  }

  it('off a terminal it needs --yes, and in agent mode even on one: exit 2, nothing sent', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    expect(await runCli(['--profiles', '*', ...deleteWords(a)], { env: { SVCADM_CONFIG_DIR: dir } })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: refusing to delete without confirmation: not a terminal — pass --yes to delete from every tenant listed\n',
    });
    const agent = await runCli(['--profiles', '*', ...deleteWords(a), '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir, SVCADM_AGENT: '1' },
      tty: { stdin: true, stdout: true, stderr: true },
    });
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain('refusing to delete without confirmation: agent mode (SVCADM_AGENT)');
    expect([await deletes(a), await deletes(b)]).toEqual([0, 0]);
  });

  it('on a terminal the question lists every tenant, profile and domain; no is nothing sent', async () => {
    const dir = configWithProfiles({ dev: admin(a), 'prod-eu': admin(b) });
    const r = await runCli(['--profiles', '*', ...deleteWords(a), '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir },
      tty: { stdin: true, stdout: true, stderr: true },
      stdin: 'n\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `Delete alice@example.com from connection ${a.fixtures.databaseConnectionId} on 2 tenants?\n` +
        `  dev      ${host(a)}\n` +
        `  prod-eu  ${host(b)}\n` +
        '[y/N] svcadm: not confirmed: nothing was deleted\n',
    );
    expect([await deletes(a), await deletes(b)]).toEqual([0, 0]);
  });

  it('yes: one DELETE to each tenant, each outcome reported in profile order', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const r = await runCli(['--profiles', '*', ...deleteWords(a, '--correlation-id', 'job-7'), '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir },
      tty: { stdin: true, stdout: true, stderr: true },
      stdin: 'y\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `dev: No user alice@example.com remains in connection ${a.fixtures.databaseConnectionId}\n` +
        `prod: No user alice@example.com remains in connection ${a.fixtures.databaseConnectionId}\n`,
    );
    expect(r.stderr).toContain('dev: Correlation id: job-7\n');
    expect(r.stderr).toContain('prod: Correlation id: job-7\n');
    expect([await deletes(a), await deletes(b)]).toEqual([1, 1]);
  });

  it('--dry-run on a terminal: asks nothing, sends no DELETE, each preview under its profile in profile order', async () => {
    const dir = configWithProfiles({ dev: admin(a), 'prod-eu': admin(b), 'prod-us': readOnly(c) });
    const r = await runCli(['--profiles', '*', ...deleteWords(a, '--dry-run'), '-o', 'table'], {
      env: { SVCADM_CONFIG_DIR: dir, NO_COLOR: '1' },
      tty: { stdin: true, stdout: true, stderr: true },
    });
    const db = a.fixtures.databaseConnectionId;
    const preview = `Would delete user db|user-0001 (alice@example.com) from connection ${db} (Username-Password-Authentication)`;
    expect(r).toEqual({
      code: 0,
      stdout:
        `dev: ${preview}\ndev: Dry run: nothing was deleted\n` +
        `prod-eu: ${preview}\nprod-eu: Dry run: nothing was deleted\n` +
        `prod-us: ${preview}\nprod-us: Dry run: nothing was deleted\n`,
      stderr: '',
    });
    expect([await deletes(a), await deletes(b), await deletes(c)]).toEqual([0, 0, 0]);
  });

  it('--dry-run off a terminal needs no --yes: json, one preview per tenant in profile order, no DELETE sent', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    const r = await runCli(['--profiles', '*', ...deleteWords(a, '--dry-run'), '-o', 'json'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = {
      connection_id: a.fixtures.databaseConnectionId,
      connection_name: 'Username-Password-Authentication',
      email: 'alice@example.com',
      users: [{ user_id: 'db|user-0001', email: 'alice@example.com' }],
      outcome: 'would_delete',
    };
    expect(JSON.parse(r.stdout)).toEqual([
      { profile: 'dev', domain: host(a), result },
      { profile: 'prod', domain: host(b), result },
    ]);
    expect([await deletes(a), await deletes(b)]).toEqual([0, 0]);
  });

  it('--dry-run -o ndjson: a {"profile","item"} preview per tenant, a tenant that refuses the read its error line, exit 9', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    await b.failNext({
      path: '/connections',
      status: 403,
      body: { ...FORBIDDEN, message: 'Insufficient scope, expected any of: read:connections' },
    });
    const r = await runCli(['--profiles', '*', ...deleteWords(a, '--dry-run'), '-o', 'ndjson'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(9);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { profile: string; item?: { outcome: string }; error?: { exit_code: number } });
    // As they come (cli.md): in the order the tenants answered.
    expect(lines.map((l) => [l.profile, l.item?.outcome ?? l.error?.exit_code]).sort()).toEqual([
      ['dev', 'would_delete'],
      ['prod', 4],
    ]);
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1) ?? '')).toEqual({
      error: { status: null, code: 'tenants_failed', message: '1 of 2 tenants failed: prod (exit 4)', exit_code: 9 },
    });
    expect([await deletes(a), await deletes(b)]).toEqual([0, 0]);
  });

  it('a tenant that drops the connection after the DELETE was sent: its outcome is unknown, with its correlation id', async () => {
    const dir = configWithProfiles({ dev: admin(a), prod: admin(b) });
    await b.failNext({ path: '/connections', method: 'DELETE', kind: 'reset' });
    const r = await runCli(
      ['--profiles', '*', '--max-retries', '0', ...deleteWords(a, '--yes', '--correlation-id', 'job-8')],
      {
        env: { SVCADM_CONFIG_DIR: dir },
      },
    );
    expect(r.code).toBe(9);
    const doc = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(doc[0]).toEqual({
      profile: 'dev',
      domain: host(a),
      result: {
        connection_id: a.fixtures.databaseConnectionId,
        email: 'alice@example.com',
        outcome: 'gone',
        status: 204,
        correlation_id: 'job-8',
      },
    });
    const error = (doc[1] as { error: Record<string, unknown> }).error;
    expect(error.code).toBe('outcome_unknown');
    expect(error.exit_code).toBe(7);
    expect(String(error.message)).toMatch(/: the DELETE was sent; its outcome is unknown$/);
    expect(String(error.hint)).toContain('correlation id job-8');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(['dev: Correlation id: job-8', 'prod: Correlation id: job-8']);
    expect(lines.at(-1)).toBe('svcadm: 1 of 2 tenants failed: prod (exit 7)');
    expect([await deletes(a), await deletes(b)]).toEqual([1, 1]);
  });
});
