import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { ACCESS_TOKEN, answerJson, hostileServerPerTest, issueToken } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });
const DAY = 86_400_000;

describe('token answers', () => {
  it.each([
    [
      'a CR/LF in the token',
      { access_token: 'tok\r\nX-Evil: 1' },
      'the access token is not 1 to 16384 visible ASCII characters',
    ],
    ['a space in the token', { access_token: 'tok en' }, 'the access token is not 1 to 16384 visible ASCII characters'],
    [
      'a 20 KB token',
      { access_token: 'x'.repeat(20_000) },
      'the access token is not 1 to 16384 visible ASCII characters',
    ],
    ['no token', { access_token: 42 }, 'no access_token string'],
  ])('%s: exit 7, nothing cached, nothing sent to the interface', async (_what, fields, detail) => {
    const server = await hostile({ token: issueToken(fields), api: policy });
    const env = server.env();
    const r = await runCli(['policies', 'get', 'rlp_1'], { env });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: malformed answer from the token service at ${server.url}/oauth/token: ${detail}\n`,
    });
    expect(server.apiRequests()).toEqual([]);
    expect(existsSync(join(env.SVCADM_CONFIG_DIR ?? '', 'token-cache.json'))).toBe(false);
  });

  it.each([
    ['null', 'null where an object or a list was expected'],
    [`${'['.repeat(100)}${']'.repeat(100)}`, 'JSON nested more than 64 levels deep'],
  ])('a token answer of %s: exit 7', async (body, detail) => {
    const server = await hostile({ token: answerJson(200, body), api: policy });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env() });
    expect(r.stderr).toBe(`svcadm: malformed answer from the token service at ${server.url}/oauth/token: ${detail}\n`);
    expect(r.code).toBe(7);
  });

  it('a cache poisoned with a CR/LF token (by an older svcadm) is ignored and replaced', async () => {
    const server = await hostile({ api: policy });
    const env = server.env();
    const cache = join(env.SVCADM_CONFIG_DIR ?? '', 'token-cache.json');
    const first = await runCli(['policies', 'get', 'rlp_1'], { env });
    expect(first.code).toBe(0);
    const entries = JSON.parse(readFileSync(cache, 'utf8')) as Record<string, { accessToken: string }>;
    for (const entry of Object.values(entries)) entry.accessToken = 'tok\r\nX-Evil: 1';
    writeFileSync(cache, JSON.stringify(entries), { mode: 0o600 });
    const second = await runCli(['policies', 'get', 'rlp_1'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(server.tokenRequests()).toHaveLength(2);
    expect(server.apiRequests().map((q) => q.headers.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
      `Bearer ${ACCESS_TOKEN}`,
    ]);
  });

  it('clamps expires_in 1e20 to 30 days: auth status and --debug work, the cache holds a real date', async () => {
    const server = await hostile({ token: issueToken({ expires_in: 1e20 }), api: policy });
    const env = server.env();
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const status = await runCli(['auth', 'status', '-o', 'json'], { env, clock });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).expires_at).toBe(new Date(Date.UTC(2026, 0, 1) + 30 * DAY).toISOString());
    const debug = await runCli(['policies', 'get', 'rlp_1', '--debug'], { env, clock });
    expect(debug.code, debug.stderr).toBe(0);
    expect(debug.stderr).toContain(
      `svcadm: debug: using the cached token for client hostile-client (expires ${new Date(Date.UTC(2026, 0, 1) + 30 * DAY).toISOString()})`,
    );
  });

  it('takes expires_in 0 as 5 minutes: one token request for the commands that follow', async () => {
    const server = await hostile({ token: issueToken({ expires_in: 0 }), api: policy });
    const env = server.env();
    const clock = new VirtualClock();
    for (let run = 0; run < 3; run++) {
      const r = await runCli(['policies', 'get', 'rlp_1'], { env, clock });
      expect(r.code).toBe(0);
    }
    expect(server.apiRequests()).toHaveLength(3);
    expect(server.tokenRequests()).toHaveLength(1);
  });
});

describe('a token given with --token or SVCADM_TOKEN', () => {
  it.each([
    ['SVCADM_TOKEN', { SVCADM_TOKEN: 'abc\u001bdef' }, []],
    ['--token', {}, ['--token', 'abc\ndef']],
  ])('with a control character in %s is exit 2, nothing sent', async (_where, env, args) => {
    const server = await hostile({ api: policy });
    const r = await runCli(['policies', 'get', 'rlp_1', ...args], { env: { ...server.env(), ...env } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: the access token given with --token or SVCADM_TOKEN is not 1 to 16384 visible ASCII characters\n',
    });
    expect(server.requests).toEqual([]);
  });
});

describe('a token service that never answers', () => {
  it('events tail --duration 5s ends at 5 s, the token request included: exit 7, down since the start', async () => {
    const clock = new VirtualClock(Date.parse('2026-11-25T12:00:00Z'));
    // The request arrives, and 5 s pass without an answer (the connection stays open, silent).
    const server = await hostile({ token: () => clock.advance(5000) });
    const r = await runCli(['events', 'tail', '--duration', '5s', '--since', '1h', '-o', 'ndjson'], {
      env: server.env(),
      clock,
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    const error = {
      status: null,
      code: 'network',
      message: 'the event stream has been down since 2026-11-25T12:00:00Z, never connected: no answer yet',
      hint: `resume with: svcadm --domain ${server.url} -o ndjson events tail --since 2026-11-25T11:00:00Z`,
      exit_code: 7,
    };
    expect(r.stderr).toBe(`${JSON.stringify({ error })}\n`);
    expect(server.tokenRequests()).toHaveLength(1);
    expect(clock.now()).toBe(Date.parse('2026-11-25T12:00:05Z'));
  });
});
