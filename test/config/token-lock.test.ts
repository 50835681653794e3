import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenLockFile } from '../../src/config/token-lock.js';
import { VirtualClock } from '../helpers/clock.js';
import { answerJson, type Behaviour, CLIENT_ID, hostileServerPerTest, issueToken } from '../helpers/hostile-server.js';
import { BIN, runBin, runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });
/** The lock file of the hostile server's client: one per cache key (token URL, client id, audience). */
function lockOf(env: Record<string, string>): string {
  const url = env.SVCADM_DOMAIN ?? '';
  return join(env.SVCADM_CONFIG_DIR ?? '', tokenLockFile(`${url}/oauth/token ${CLIENT_ID} ${url}/api/v2/`));
}

/** A token service that answers after `ms`, like a loaded one: long enough for cold starts to overlap. */
function slowToken(ms: number): Behaviour {
  return (req, res) => {
    setTimeout(() => issueToken()(req, res), ms);
  };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid ?? 0;
}

describe('parallel cold starts', () => {
  it('20 processes starting together with an empty cache make one token request', async () => {
    const server = await hostile({ token: slowToken(300), api: policy });
    const env = server.env();
    const runs = await Promise.all(
      Array.from({ length: 20 }, () => runBin(['policies', 'get', 'rlp_1', '-o', 'json'], env)),
    );
    expect(runs.map((r) => r.code)).toEqual(Array.from({ length: 20 }, () => 0));
    expect(server.tokenRequests()).toHaveLength(1);
    expect(server.apiRequests()).toHaveLength(20);
    expect(existsSync(lockOf(env))).toBe(false);
  });

  it('removes a lock left by a process that died, without waiting', async () => {
    const server = await hostile({ api: policy });
    const env = server.env();
    const lock = lockOf(env);
    writeFileSync(lock, `${await deadPid()} ${hostname()} ${Date.now()}\n`);
    const clock = new VirtualClock();
    const r = await runCli(['policies', 'get', 'rlp_1'], { env, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(server.tokenRequests()).toHaveLength(1);
    expect(existsSync(lock)).toBe(false);
  });

  it('waits at most 30 s for a holder that hangs, then asks for its own token and leaves the lock alone', async () => {
    const server = await hostile({ api: policy });
    const env = server.env();
    const lock = lockOf(env);
    const held = `${process.pid} ${hostname()} ${Date.now()}\n`;
    writeFileSync(lock, held);
    const clock = new VirtualClock();
    const r = await runCli(['policies', 'get', 'rlp_1', '--debug'], { env, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(clock.sleeps).toEqual(Array.from({ length: 300 }, () => 100));
    expect(r.stderr).toContain(
      `svcadm: debug: the token lock is still held by process ${process.pid}: asking for a token without it\n`,
    );
    expect(server.tokenRequests()).toHaveLength(1);
    expect(readFileSync(lock, 'utf8')).toBe(held);
  });

  it('does not deadlock when the holder is killed (kill -9) during its token request', async () => {
    let arrived: () => void = () => {};
    const tokenAsked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // The first token request never gets an answer; the next ones do.
    const server = await hostile({
      token: (req, res) => (server?.tokenRequests().length === 1 ? arrived() : issueToken()(req, res)),
      api: policy,
    });
    const env = server.env();
    const holder = spawn(process.execPath, [BIN, 'policies', 'get', 'rlp_1'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: 'ignore',
    });
    await tokenAsked;
    expect(existsSync(lockOf(env))).toBe(true);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('exit', resolve));
    const clock = new VirtualClock();
    const r = await runCli(['policies', 'get', 'rlp_1'], { env, clock });
    expect(r.code, r.stderr).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(server.tokenRequests()).toHaveLength(2);
  });

  it('a hung token service of one client does not delay a cold start of another: one lock per cache key', async () => {
    let arrived: () => void = () => {};
    const tokenAsked = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // Client a's token request never gets an answer; client b's do.
    const server = await hostile({
      token: (req, res) => (req.body.includes('client_id=a-client') ? arrived() : issueToken()(req, res)),
      api: policy,
    });
    const env = server.env();
    const holder = spawn(process.execPath, [BIN, 'policies', 'get', 'rlp_1'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, SVCADM_CLIENT_ID: 'a-client' },
      stdio: 'ignore',
    });
    try {
      await tokenAsked;
      const clock = new VirtualClock();
      const r = await runCli(['policies', 'get', 'rlp_1', '--client-id', 'b-client'], { env, clock });
      expect(r.code, r.stderr).toBe(0);
      expect(clock.sleeps).toEqual([]);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.on('exit', resolve));
    }
  });
});
