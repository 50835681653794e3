import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorPerTest } from '../helpers/emulator.js';
import { runBin, runCli, tempConfigDir } from '../helpers/run-cli.js';

const startEmulator = emulatorPerTest();

const DOMAIN = 'https://tenant.example.com';

function stored(dir: string): { current?: string; profiles: Record<string, Record<string, unknown>> } {
  return JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8'));
}

function add(dir: string, name: string, secret = `secret-of-${name}`) {
  return runBin(
    ['profiles', 'add', name, '--domain', DOMAIN, '--client-id', `id-${name}`, '--client-secret-stdin', '--no-verify'],
    { SVCADM_CONFIG_DIR: dir },
    secret,
  );
}

describe('parallel writers of the profile store', () => {
  it('20 parallel profiles add store 20 profiles', async () => {
    const dir = tempConfigDir();
    const names = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const runs = await Promise.all(names.map((name) => add(dir, name)));
    expect(runs.map((r) => r.code)).toEqual(names.map(() => 0));
    expect(Object.keys(stored(dir).profiles).sort()).toEqual([...names].sort());
    for (const name of names) expect(stored(dir).profiles[name]?.clientSecret).toBe(`secret-of-${name}`);
  });

  it('a remove racing adds never brings the removed secret back', async () => {
    const dir = tempConfigDir();
    expect((await add(dir, 'gone')).code).toBe(0);
    const adds = Array.from({ length: 8 }, (_, i) => `q${i}`);
    const runs = await Promise.all([
      ...adds.map((name) => add(dir, name)),
      runBin(['profiles', 'remove', 'gone'], { SVCADM_CONFIG_DIR: dir }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([...adds.map(() => 0), 0]);
    const after = stored(dir);
    expect(Object.keys(after.profiles).sort()).toEqual(adds);
    expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).not.toContain('secret-of-gone');
  });

  it('waits for a live holder of the store lock, then gives up with one line naming it', async () => {
    const dir = tempConfigDir();
    const lock = join(dir, 'profiles.json.lock');
    writeFileSync(lock, `${process.pid} ${(await import('node:os')).hostname()} ${Date.now()}\n`);
    const r = await runCli(['profiles', 'use', 'x'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles: { x: { domain: DOMAIN, clientId: 'c' } } }));
    const held = await runCli(['profiles', 'use', 'x'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(held).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: the profile store ${join(dir, 'profiles.json')} is locked by process ${process.pid} — if no svcadm is running, delete ${lock}\n`,
    });
  });
});

describe('a hand-edited profile store', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an object as secret', { clientSecret: { value: 's' } }, 'field clientSecret must be a string, not an object'],
    ['a number as auth URL', { authUrl: 443 }, 'field authUrl must be a string, not a number'],
    ['no client id', { clientId: undefined }, 'field clientId must be a non-empty string, it is missing'],
  ];
  it.each(cases)('%s is exit 2 naming the file, the profile and the field', async (_what, change, message) => {
    const dir = tempConfigDir();
    const profile = { domain: DOMAIN, clientId: 'c', clientSecret: 's', ...change };
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ current: 'prod', profiles: { prod: profile } }), {
      mode: 0o600,
    });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: ${join(dir, 'profiles.json')}: profile 'prod': ${message} — repair the file, or remove the profile with \`svcadm profiles remove prod\`\n`,
    });
    const json = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(json.code).toBe(2);
    const envelope = JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '');
    expect(envelope.error.message).toBe(`${join(dir, 'profiles.json')}: profile 'prod': ${message}`);
    expect(envelope.error.exit_code).toBe(2);
    // The profile the store cannot use can still be removed.
    const removed = await runCli(['profiles', 'remove', 'prod'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(removed).toEqual({ code: 0, stdout: '', stderr: "Removed profile 'prod'. No profile is current now.\n" });
    expect(stored(dir)).toEqual({ profiles: {} });
  });

  it('a store that is not an object names the file', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'profiles.json'), '[]', { mode: 0o600 });
    const r = await runCli(['profiles', 'list'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: ${join(dir, 'profiles.json')}: the store must be a JSON object, not a list — repair or delete the file\n`,
    });
  });

  it('a UTF-8 byte order mark (as Notepad writes one) is accepted', async () => {
    const dir = tempConfigDir();
    const store = { current: 'prod', profiles: { prod: { domain: DOMAIN, clientId: 'c', clientSecret: 's' } } };
    writeFileSync(join(dir, 'profiles.json'), `\uFEFF${JSON.stringify(store)}`, { mode: 0o600 });
    const r = await runCli(['profiles', 'list', '-o', 'table'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({
      code: 0,
      stdout: `CURRENT  NAME  DOMAIN                      CLIENT ID\n*        prod  ${DOMAIN}  c\n`,
      stderr: `Config folder: ${dir}\n`,
    });
  });
});

describe('a trailing line break on a secret or client id', () => {
  it('from the environment is removed, and --debug says so without the value', async () => {
    const emulator = await startEmulator();
    const env = emulator.env;
    const r = await runCli(['auth', 'status', '--check', '--debug'], {
      env: {
        ...env,
        SVCADM_CLIENT_ID: `${env.SVCADM_CLIENT_ID}\n`,
        SVCADM_CLIENT_SECRET: `${env.SVCADM_CLIENT_SECRET}\r\n`,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    expect(lines).toContain('svcadm: debug: removed a trailing line break from SVCADM_CLIENT_ID');
    expect(lines).toContain('svcadm: debug: removed a trailing line break from SVCADM_CLIENT_SECRET');
    expect(r.stderr).not.toContain(env.SVCADM_CLIENT_SECRET ?? '');
  });

  it('from a flag is removed', async () => {
    const emulator = await startEmulator();
    const { SVCADM_CLIENT_SECRET: secret = '', ...env } = emulator.env;
    const r = await runCli(['auth', 'status', '--check', '--debug', '--client-secret', `${secret}\n`], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toContain('svcadm: debug: removed a trailing line break from --client-secret');
  });

  it('from --client-secret-stdin (a lone CR too) is removed before it is stored', async () => {
    const dir = tempConfigDir();
    const r = await runCli(
      [
        'profiles',
        'add',
        'k8s',
        '--domain',
        DOMAIN,
        '--client-id',
        'c',
        '--client-secret-stdin',
        '--no-verify',
        '--debug',
      ],
      { env: { SVCADM_CONFIG_DIR: dir }, stdin: 'from-a-secret\r' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')).toContain(
      'svcadm: debug: removed a trailing line break from the secret read from stdin',
    );
    expect(stored(dir).profiles.k8s?.clientSecret).toBe('from-a-secret');
  });
});
