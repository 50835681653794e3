import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { refusedPort } from '../helpers/loopback-server.js';
import { configWithProfiles, type ProfileSpec, runCli } from '../helpers/run-cli.js';

/**
 * `svcadm snapshot` and `svcadm diff` (cli.md, "Compare tenants") against real emulators: two with the same seed
 * (started one after the other, events emitted on one), one with another seed, one whose plan lacks rate limit
 * policies (403), and a profile whose tenant is down.
 */
const emus: TestEmulator[] = [];
let dev: TestEmulator;
let prod: TestEmulator;
let other: TestEmulator;
let noPlan: TestEmulator;
let config: string;

const spec = (emu: TestEmulator): ProfileSpec => ({ domain: emu.url, ...emu.admin });

beforeAll(async () => {
  dev = await startTestEmulator({ seed: 7 });
  prod = await startTestEmulator({ seed: 7 });
  other = await startTestEmulator({ seed: 8 });
  noPlan = await startTestEmulator({ seed: 7, rateLimitPolicies: false });
  emus.push(dev, prod, other, noPlan);
  const down = await refusedPort();
  config = configWithProfiles({
    dev: spec(dev),
    prod: spec(prod),
    other: spec(other),
    noplan: spec(noPlan),
    down: { domain: `http://127.0.0.1:${down}`, ...dev.admin },
  });
});
afterAll(async () => {
  await Promise.all(emus.map((emu) => emu.close()));
});
beforeEach(async () => {
  await Promise.all(emus.map((emu) => emu.reset()));
});

const cli = (words: string[], tty = false) =>
  runCli(words, { env: { SVCADM_CONFIG_DIR: config, NO_COLOR: '1' }, tty: { stdout: tty }, columns: 120 });

async function editData(emu: TestEmulator, body: unknown): Promise<Response> {
  return fetch(`${emu.url}/__emulator/data`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('svcadm diff', () => {
  it('two emulators with the same seed are alike, events emitted on one or not: exit 0', async () => {
    await prod.emit('user.created', 50);
    const r = await cli(['diff', 'dev', 'prod'], true);
    expect(r).toEqual({ code: 0, stdout: 'policies: alike\nprovisionings: alike\nconnections: alike\n', stderr: '' });
  });

  it('an edit through the control route is exactly that difference: exit 10, json', async () => {
    const id = prod.fixtures.policyIdByAction.block;
    const edited = await editData(prod, { kind: 'policies', id, set: { configuration: { action: 'log', limit: 5 } } });
    expect(edited.status).toBe(200);
    const r = await cli(['diff', 'dev', 'prod', '-o', 'json']);
    expect(r.code).toBe(10);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      left: 'dev',
      right: 'prod',
      differences: [
        {
          kind: 'policies',
          key: 'oauth_authentication_api client client_id:3obgc1jdby8c2u6i17qf7qglvzicinnu',
          change: 'changed',
          fields: [
            { field: 'configuration.action', left: 'block', right: 'log' },
            { field: 'configuration.limit', left: 100, right: 5 },
          ],
        },
      ],
    });
  });

  it('seeds different: exit 10, grouped on a terminal with a count per kind', async () => {
    const r = await cli(['diff', 'dev', 'other', '--kind', 'policies'], true);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'policies: 3 added, 3 removed, 0 changed',
        '  + oauth_authentication_api client client_id:36j5ytbqmky7rhdz06o1lfcgpax0n73s',
        '  + oauth_authentication_api client client_id:3mywfp5nq8ixktgnsx9l89h3svnlajfp',
        '  - oauth_authentication_api client client_id:3obgc1jdby8c2u6i17qf7qglvzicinnu',
        '  + oauth_authentication_api client client_id:6bolvu5w8m0bgub86ogux63h4img4ai9',
        '  - oauth_authentication_api client client_id:e15eifr0rfrnw055iwqwyxkkwhr1q0mr',
        '  - oauth_authentication_api client client_id:r0bhtv7skav3zwvgp4owadisii9echb0',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(10);
  });

  it('ndjson: one difference a line; table: kind, key, change, fields', async () => {
    const id = prod.fixtures.policyIdByAction.allow;
    expect((await editData(prod, { kind: 'policies', id, remove: true })).status).toBe(200);
    const ndjson = await cli(['diff', 'dev', 'prod', '-o', 'ndjson']);
    expect(ndjson.stdout).toBe(
      '{"kind":"policies","key":"oauth_authentication_api client default","change":"removed","fields":[],"item":{"configuration":{"action":"allow"},"consumer":"client","consumer_selector":"default","resource":"oauth_authentication_api"}}\n',
    );
    expect(ndjson.code).toBe(10);
    const table = await cli(['diff', 'dev', 'prod', '-o', 'table']);
    expect(table.stdout).toBe(
      'KIND      KEY                                      CHANGE   FIELDS\npolicies  oauth_authentication_api client default  removed  -\n',
    );
    expect(table.code).toBe(10);
  });

  it('a tenant down: its own code (7)', async () => {
    const r = await cli(['diff', 'dev', 'down', '--kind', 'connections']);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
  });

  it('many against one: a row per tenant and kind, exit 10; a tenant down makes it 9', async () => {
    const id = prod.fixtures.policyIdByAction.allow;
    expect((await editData(prod, { kind: 'policies', id, remove: true })).status).toBe(200);
    const r = await cli(['diff', '--against', 'dev', '--profiles', 'dev,prod', '--kind', 'policies', '-o', 'table']);
    expect(r).toEqual({
      code: 10,
      stdout:
        'PROFILE  KIND      ADDED  REMOVED  CHANGED  NOTE\ndev      policies  0      0        0        -\nprod     policies  0      1        0        -\n',
      stderr: '',
    });
    const down = await cli(['diff', '--against', 'dev', '--profiles', 'down,prod', '--kind', 'policies', '-o', 'json']);
    expect(down.code).toBe(9);
    const entries = JSON.parse(down.stdout) as Array<{ profile: string; result?: { differences: unknown[] } }>;
    expect(entries.map((e) => [e.profile, e.result?.differences.length])).toEqual([
      ['down', undefined],
      ['prod', 1],
    ]);
  });

  it('--profiles without --against: exit 2, nothing sent', async () => {
    const r = await cli(['--profiles', 'dev,prod', 'diff', 'dev', 'prod']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "svcadm: --profiles does not apply to 'svcadm diff': it compares the two sides named on its line; --against <baseline> compares each tenant with one — name one tenant with -p <profile>\n",
    );
  });
});

describe('svcadm snapshot', () => {
  const fresh = () => mkdtempSync(join(tmpdir(), 'svcadm-snap-'));

  it('writes a folder per tenant, byte-identical when unchanged, and compares alike with its own tenant', async () => {
    const dir = fresh();
    const r = await cli([
      '--profiles',
      'dev,prod',
      'snapshot',
      '--dir',
      dir,
      '--user',
      dev.fixtures.userId,
      '-o',
      'json',
    ]);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'dev')).sort()).toEqual([
      'connections.yaml',
      'permissions',
      'policies.yaml',
      'provisionings.yaml',
    ]);
    expect(readdirSync(join(dir, 'dev', 'permissions'))).toEqual([`${encodeURIComponent(dev.fixtures.userId)}.yaml`]);
    const first = readFileSync(join(dir, 'dev', 'policies.yaml'), 'utf8');
    expect(first.slice(0, 232)).toBe(
      '- configuration:\n    action: redirect\n    limit: 20\n    redirect_uri: https://status.example.com/slow-down\n  consumer: client\n  consumer_selector: cimd_clients\n  resource: oauth_authentication_api\n- configuration:\n    action: block\n',
    );
    expect(first).not.toMatch(/rlp_|created_at|updated_at|127\.0\.0\.1/);
    // Two tenants of one seed, events on one: the same bytes.
    await prod.emit('user.created', 20);
    await cli(['-p', 'prod', 'snapshot', '--dir', dir, '--user', dev.fixtures.userId]);
    for (const file of ['policies.yaml', 'connections.yaml', 'provisionings.yaml']) {
      expect(readFileSync(join(dir, 'prod', file), 'utf8')).toBe(readFileSync(join(dir, 'dev', file), 'utf8'));
    }
    const same = await cli([
      'diff',
      join(dir, 'dev'),
      'dev',
      '--user',
      `${dev.fixtures.userId}=${dev.fixtures.userId}`,
    ]);
    expect(same).toEqual({
      code: 0,
      stdout: `{\n  "left": "${join(dir, 'dev')}",\n  "right": "dev",\n  "differences": []\n}\n`,
      stderr: '',
    });
    expect(readdirSync(dir).sort()).toEqual(['dev', 'prod']);
  });

  it('a kind the plan lacks (403) is written as unavailable, not a failed tenant', async () => {
    const dir = fresh();
    const r = await cli(['-p', 'noplan', 'snapshot', '--dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('policies: unavailable (feature_not_enabled); written as unavailable\n');
    expect(readFileSync(join(dir, 'noplan', 'policies.yaml'), 'utf8')).toBe('unavailable: feature_not_enabled\n');
  });

  it('a failed tenant leaves its old folder as it was; the others are written; exit 9', async () => {
    const dir = fresh();
    expect((await cli(['-p', 'dev', 'snapshot', '--dir', dir])).code).toBe(0);
    const before = readFileSync(join(dir, 'dev', 'policies.yaml'), 'utf8');
    writeFileSync(join(dir, 'dev', 'left-behind.txt'), 'mine');
    await dev.failNext({ path: '/connections', status: 500, count: 50 });
    const r = await cli(['--profiles', 'dev,prod', 'snapshot', '--dir', dir]);
    expect(r.code).toBe(9);
    expect(readFileSync(join(dir, 'dev', 'policies.yaml'), 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'dev', 'left-behind.txt'))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['dev', 'prod']);
  });

  it('recovers from a swap cut short between its two renames', async () => {
    const dir = fresh();
    expect((await cli(['-p', 'dev', 'snapshot', '--dir', dir])).code).toBe(0);
    // What a swap cut between the renames leaves: the old folder aside, the new one complete, none in place.
    const { renameSync, cpSync } = await import('node:fs');
    cpSync(join(dir, 'dev'), join(dir, '.dev.new'), { recursive: true });
    renameSync(join(dir, 'dev'), join(dir, '.dev.old'));
    mkdirSync(join(dir, '.prod.new'));
    const r = await cli(['diff', join(dir, 'dev'), 'dev', '--kind', 'policies']);
    expect(r.code).toBe(2);
    expect((await cli(['--profiles', 'dev,prod', 'snapshot', '--dir', dir])).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['dev', 'prod']);
    expect((await cli(['diff', join(dir, 'dev'), 'dev'])).code).toBe(0);
  });
});
