import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { InStream } from '../../src/context.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
let env: Record<string, string>;

withFileEmulator((each) => {
  ({ emu, configDir: dir } = each);
  env = { SVCADM_CONFIG_DIR: dir };
});

const add = (name: string, extra: string[] = [], secret = emu.admin.clientSecret) =>
  runCli(
    [
      'profiles',
      'add',
      name,
      '--domain',
      emu.url,
      '--client-id',
      emu.admin.clientId,
      '--client-secret-stdin',
      ...extra,
    ],
    {
      env,
      stdin: `${secret}\n`,
    },
  );

describe('profiles', () => {
  it('adds a verified profile, makes the first one current, and stores it privately', async () => {
    const r = await add('local');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^Verified: the token service issued a token with \d+ scope\(s\)\.\n/);
    expect(r.stderr).toContain(
      `Saved profile 'local' for ${emu.url} (client ${emu.admin.clientId}); it is the current profile.\n`,
    );
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'profiles.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'token-cache.json')).mode & 0o777).toBe(0o600);
    // The verification token is cached: the next command makes no token request.
    await emu.clearRequests();
    const get = await runCli(['policies', 'get', emu.fixtures.policyIds[0] ?? ''], { env });
    expect(get.code).toBe(0);
    expect((await emu.requests()).counters.tokenRequests).toBe(0);
  });

  it('refuses to save a profile whose credentials the token service refuses (exit 3)', async () => {
    const r = await add('bad', [], 'wrong-secret');
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'svcadm: token request refused: Unauthorized — check the client id, secret (or private key) and audience you gave\n',
    );
    expect((await runCli(['profiles', 'list', '-o', 'json'], { env })).stdout).toBe('[]\n');
  });

  it('saves without verifying with --no-verify', async () => {
    await emu.clearRequests();
    const r = await add('offline', ['--no-verify'], 'anything');
    expect(r.code).toBe(0);
    expect((await emu.requests()).counters.tokenRequests).toBe(0);
  });

  it('needs a secret off a terminal', async () => {
    const r = await runCli(['profiles', 'add', 'x', '--domain', emu.url, '--client-id', 'c'], { env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: no client secret given — pass it with --client-secret-stdin (or run on a terminal to be asked)\n',
    });
  });

  it('asks for the secret without echoing it on a terminal', async () => {
    const stdin = new PassThrough() as PassThrough & InStream;
    const modes: boolean[] = [];
    stdin.setRawMode = (mode: boolean) => modes.push(mode);
    const run = runCli(['profiles', 'add', 'tty', '--domain', emu.url, '--client-id', emu.admin.clientId], {
      env,
      stdinStream: stdin,
      tty: { stdin: true, stderr: true },
    });
    stdin.write(`${emu.admin.clientSecret}\r`);
    const r = await run;
    expect(r.code).toBe(0);
    expect(modes).toEqual([true, false]);
    expect(r.stderr.startsWith('Client secret: \n')).toBe(true);
    expect(r.stderr).not.toContain(emu.admin.clientSecret);
  });

  it('rejects bad names and domains before saving', async () => {
    expect((await add('no spaces')).stderr).toBe(
      "svcadm: invalid profile name 'no spaces': use letters, digits, '-' and '_' (at most 63)\n",
    );
    const r = await runCli(['profiles', 'add', 'p', '--domain', 'http://tenant.example.com', '--client-id', 'c'], {
      env,
    });
    expect(r.code).toBe(2);
  });

  it('lists, shows, switches and removes profiles, never showing the secret', async () => {
    await add('one');
    await add('two', ['--use']);
    const list = await runCli(['profiles', 'list', '-o', 'json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'one',
        current: false,
        domain: emu.url,
        client_id: emu.admin.clientId,
        client_secret: 'stored',
        client_secret_in: 'file',
        auth_url: emu.url,
        audience: `${emu.url}/api/v2/`,
      },
      expect.objectContaining({ name: 'two', current: true }),
    ]);
    const table = await runCli(['profiles', 'list', '-o', 'table'], { env });
    expect(table.stdout).toBe(
      `CURRENT  NAME  DOMAIN${' '.repeat(emu.url.length - 4)}CLIENT ID\n         one   ${emu.url}  ${emu.admin.clientId}\n*        two   ${emu.url}  ${emu.admin.clientId}\n`,
    );
    expect(table.stderr).toBe(`Config folder: ${env.SVCADM_CONFIG_DIR}\n`);
    const show = await runCli(['profiles', 'show', '-o', 'table'], { env });
    expect(show.stdout).toContain('Profile two (current)\n');
    expect(show.stdout).toContain(
      `client secret  (in ${join(env.SVCADM_CONFIG_DIR ?? '', 'profiles.json')}, not shown)\n`,
    );
    for (const r of [list, table, show]) expect(r.stdout + r.stderr).not.toContain(emu.admin.clientSecret);

    expect((await runCli(['profiles', 'use', 'one'], { env })).stderr).toBe("Now using profile 'one'.\n");
    expect(JSON.parse((await runCli(['profiles', 'show'], { env })).stdout).name).toBe('one');
    expect((await runCli(['profiles', 'use', 'three'], { env })).stderr).toBe(
      `svcadm: no profile named 'three' in ${env.SVCADM_CONFIG_DIR} — known profiles: one, two\n`,
    );
    expect((await runCli(['profiles', 'remove', 'one'], { env })).stderr).toBe(
      "Removed profile 'one'. No profile is current now.\n",
    );
    expect(
      JSON.parse((await runCli(['profiles', 'list'], { env })).stdout).map((p: { name: string }) => p.name),
    ).toEqual(['two']);
  });

  it('runs commands with the profile, and flags or environment win over it', async () => {
    await add('local');
    const id = emu.fixtures.policyIds[1] ?? '';
    expect((await runCli(['policies', 'get', id], { env })).code).toBe(0);
    const r = await runCli(['policies', 'get', id, '--domain', 'https://other.example.com'], { env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^svcadm: no credentials configured for https:\/\/other\.example\.com/);
  });
});

describe('auth', () => {
  it('prints only the token on stdout', async () => {
    const r = await runCli(['auth', 'token'], { env: { ...env, ...emu.env } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(r.stderr).toBe('');
  });

  it('shows tenant, client, expiry and scopes', async () => {
    const r = await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, ...emu.env } });
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout);
    expect(status).toMatchObject({
      tenant: emu.url,
      profile: null,
      client_id: emu.admin.clientId,
      token_url: `${emu.url}/oauth/token`,
      audience: `${emu.url}/api/v2/`,
      token_source: 'token service',
    });
    expect(status.scopes).toContain('read:rate_limit_policies');
    expect(Date.parse(status.expires_at)).toBeGreaterThan(Date.now());
    const again = JSON.parse((await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, ...emu.env } })).stdout);
    expect(again.token_source).toBe('cache');
    expect(readFileSync(join(dir, 'token-cache.json'), 'utf8')).not.toContain(emu.admin.clientSecret);
  });

  it('warns when the secret is given on the command line', async () => {
    const r = await runCli(['auth', 'status', '--client-secret', emu.admin.clientSecret], {
      env: { ...env, SVCADM_DOMAIN: emu.url, SVCADM_CLIENT_ID: emu.admin.clientId },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'svcadm: warning: --client-secret leaks into shell history and the process list; prefer SVCADM_CLIENT_SECRET or a profile\n',
    );
  });
});
