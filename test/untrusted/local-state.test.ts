import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPrivatePath } from '../../src/config/private-file.js';
import { UsageError } from '../../src/errors.js';
import { answerJson, type HostileServer, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();
/** The server the last `hostileEnv` started. */
let server: HostileServer | undefined;

const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });

async function hostileEnv(configDir: string): Promise<Record<string, string>> {
  server = await hostile({ api: policy });
  return server.env({ SVCADM_CONFIG_DIR: configDir });
}

describe('the config folder and its files', () => {
  it('refuses a folder writable by its group or others, as ssh does, and leaves its mode alone', async () => {
    const dir = tempConfigDir();
    chmodSync(dir, 0o770);
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: await hostileEnv(dir) });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to use ${dir}: it is writable by its group or others — run: chmod go-w ${dir}\n`,
    });
    expect(server?.requests).toEqual([]);
    expect(statSync(dir).mode & 0o777).toBe(0o770);
  });

  it('quotes the folder in the chmod it suggests, so that a path with a space pastes as one word', async () => {
    const dir = join(tempConfigDir(), 'my config');
    mkdirSync(dir, { mode: 0o770 });
    chmodSync(dir, 0o770);
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: await hostileEnv(dir) });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to use ${dir}: it is writable by its group or others — run: chmod go-w '${dir}'\n`,
    });
    expect(server?.requests).toEqual([]);
  });

  it('refuses a profile store or token cache writable by others', async () => {
    for (const file of ['profiles.json', 'token-cache.json']) {
      const dir = tempConfigDir();
      writeFileSync(join(dir, file), '{}', { mode: 0o666 });
      chmodSync(join(dir, file), 0o666);
      const r = await runCli(['policies', 'get', 'rlp_1'], { env: await hostileEnv(dir) });
      const path = join(dir, file);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: refusing to use ${path}: it is writable by its group or others — run: chmod go-w ${path}\n`,
      });
      await server?.close();
      server = undefined;
    }
  });

  it('refuses a folder owned by another user', () => {
    const dir = tempConfigDir();
    const other = (process.getuid?.() ?? 0) + 4242;
    if (process.getuid?.() === 0) chownSync(dir, other, other);
    // Not root: the check is asked for a user the folder does not belong to.
    const uid = process.getuid?.() === 0 ? 0 : other;
    const err = (() => {
      try {
        checkPrivatePath(dir, uid);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(`refusing to use ${dir}: it belongs to user ${statSync(dir).uid}, not to you`);
  });

  it('creates a missing folder 0700, and uses an existing one that is not writable by others as it is', async () => {
    const parent = tempConfigDir();
    const created = join(parent, 'a', 'svcadm');
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: await hostileEnv(created) });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(created).mode & 0o777).toBe(0o700);
    const existing = join(parent, 'existing');
    mkdirSync(existing, { mode: 0o755 });
    chmodSync(existing, 0o755);
    const again = await runCli(['policies', 'get', 'rlp_1'], {
      env: { ...(server?.env() ?? {}), SVCADM_CONFIG_DIR: existing },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(statSync(existing).mode & 0o777).toBe(0o755);
    expect(statSync(join(existing, 'token-cache.json')).mode & 0o777).toBe(0o600);
  });
});

describe('writing private files', () => {
  it('removes its own stale temporary files, and only those', async () => {
    const dir = tempConfigDir();
    const stale = join(dir, '.token-cache.json.99999-dead.tmp');
    const fresh = join(dir, '.token-cache.json.99998-live.tmp');
    const foreign = join(dir, '.other.tmp');
    for (const file of [stale, fresh, foreign]) writeFileSync(file, 'x', { mode: 0o600 });
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    utimesSync(foreign, hourAgo, hourAgo);
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: await hostileEnv(dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(foreign)).toBe(true);
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.tmp'))
        .sort(),
    ).toEqual(['.other.tmp', '.token-cache.json.99998-live.tmp']);
  });
});

describe('profile names', () => {
  it.each(['toString', 'constructor', 'hasOwnProperty'])(
    '%s is not a profile unless one was saved under that name',
    async (name) => {
      const dir = tempConfigDir();
      writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles: {} }), { mode: 0o600 });
      const r = await runCli(['policies', 'get', 'rlp_1', '-p', name], { env: { SVCADM_CONFIG_DIR: dir } });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: no profile named '${name}' in ${dir} — run \`svcadm profiles add <name> --domain <tenant> --client-id <id>\`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET\n`,
      });
      const use = await runCli(['profiles', 'use', name], { env: { SVCADM_CONFIG_DIR: dir } });
      expect(use.code).toBe(2);
      expect(use.stderr).toBe(`svcadm: no profile named '${name}' in ${dir} — add one with \`svcadm profiles add\`\n`);
    },
  );

  it('__proto__ is not a profile name', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'show', '__proto__'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svcadm: invalid profile name '__proto__': use letters, digits, '-' and '_' (at most 63)\n",
    });
  });

  it('names in the store that are not profile names never reach the completion scripts', async () => {
    const dir = tempConfigDir();
    const profile = { domain: 'https://t.example.com', clientId: 'c' };
    writeFileSync(
      join(dir, 'profiles.json'),
      JSON.stringify({
        current: '$(touch /tmp/pwned)',
        profiles: { ok: profile, '$(touch /tmp/pwned)': profile, 'a b': profile, __proto__: profile },
      }),
      { mode: 0o600 },
    );
    const r = await runCli(['__complete', 'profiles'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({ code: 0, stdout: 'ok\n', stderr: '' });
    const list = await runCli(['profiles', 'list', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(
      (JSON.parse(list.stdout) as Array<{ name: string; current: boolean }>).map((p) => [p.name, p.current]),
    ).toEqual([['ok', false]]);
  });
});
