import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { json, startLoopback } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each));

const redirectId = () => emu.fixtures.policyIdByAction.redirect;

describe('policies get', () => {
  it('prints the policy body as JSON', async () => {
    const r = await runCli(['policies', 'get', redirectId(), '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const policy = JSON.parse(r.stdout);
    expect(policy).toMatchObject({
      id: redirectId(),
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: 'cimd_clients',
      configuration: { action: 'redirect', limit: 20, redirect_uri: 'https://status.example.com/slow-down' },
    });
    expect(r.stdout).toBe(`${JSON.stringify(policy, null, 2)}\n`);
  });

  it('defaults to JSON off a terminal', async () => {
    const r = await runCli(['policies', 'get', redirectId()], { env });
    expect(JSON.parse(r.stdout).id).toBe(redirectId());
  });

  it('prints a plain table with -o table off a terminal', async () => {
    const r = await runCli(['policies', 'get', redirectId(), '-o', 'table'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Rate limit policy  (Early Access endpoint)');
    expect(lines.slice(1, 8)).toEqual([
      `id                 ${redirectId()}`,
      'resource           oauth_authentication_api',
      'consumer           client',
      'consumer_selector  cimd_clients',
      'action             redirect',
      'limit              20 requests/s',
      'redirect_uri       https://status.example.com/slow-down',
    ]);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('renders the table on a terminal, colour off with NO_COLOR', async () => {
    const r = await runCli(['policies', 'get', redirectId()], {
      env: { ...env, NO_COLOR: '1' },
      tty: { stdout: true },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Rate limit policy  (Early Access endpoint)');
    expect(r.stdout).toMatch(/consumer_selector\s+cimd_clients/);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('uses colour on a terminal with FORCE_COLOR', async () => {
    const r = await runCli(['policies', 'get', emu.fixtures.policyIdByAction.block], {
      env: { ...env, FORCE_COLOR: '1' },
      tty: { stdout: true },
    });
    expect(r.stdout).toContain('\u001b[31mblock');
  });

  it('exits 5 on an unknown policy, with the envelope under -o json', async () => {
    const r = await runCli(['policies', 'get', 'rlp_missing', '-o', 'json'], { env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '')).toEqual({
      error: {
        status: 404,
        code: 'inexistent_rate_limit_policy',
        message: 'rate limit policy not found: The rate limit policy does not exist.',
        hint: `\`svcadm --domain ${emu.url} -o json policies list\` shows the ids`,
        exit_code: 5,
      },
    });
  });

  it('exits 4 and names the missing scope', async () => {
    await emu.failNext({
      path: '/rate-limit-policies',
      status: 403,
      body: {
        statusCode: 403,
        error: 'Forbidden',
        message: 'Insufficient scope, expected any of: read:rate_limit_policies',
        errorCode: 'insufficient_scope',
      },
    });
    const r = await runCli(['policies', 'get', redirectId()], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      "svcadm: forbidden: Insufficient scope, expected any of: read:rate_limit_policies — grant the scope read:rate_limit_policies to the client in the tenant's settings\n",
    );
  });

  it('exits 3 when the client credentials are refused, naming where they came from', async () => {
    const r = await runCli(['policies', 'get', redirectId()], { env: { ...env, SVCADM_CLIENT_SECRET: 'wrong' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'svcadm: token request refused: Unauthorized — check SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET\n',
    );
  });

  it('exits 3 on a forged token', async () => {
    const r = await runCli(['policies', 'get', redirectId()], { env: { ...env, SVCADM_TOKEN: 'a.b.c' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^svcadm: authentication failed: Invalid (token|signature)/);
  });

  it('retries a 429 and succeeds', async () => {
    await emu.rateLimitNext('/rate-limit-policies', 2, 0);
    const r = await runCli(['policies', 'get', redirectId(), '--debug'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(redirectId());
    expect(r.stderr).toMatch(/svcadm: debug: retrying in 0 ms \(retry 1 of 5\): 429 rate limited/);
    expect(r.stderr).toMatch(/svcadm: debug: retrying in 0 ms \(retry 2 of 5\): 429 rate limited/);
  });

  it('exits 6 when still rate limited after the retries', async () => {
    await emu.rateLimitNext('/rate-limit-policies', 10, 0);
    const r = await runCli(['policies', 'get', redirectId(), '--max-retries', '2'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(
      'svcadm: rate limited: Global limit has been reached (still 429 after 2 retries) — wait and run again, or raise --max-retries\n',
    );
  });

  it('retries a 5xx and succeeds', async () => {
    await emu.failNext({ path: '/rate-limit-policies', status: 503, count: 2 });
    const r = await runCli(['policies', 'get', redirectId()], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(redirectId());
  });

  it('exits 7 on a lasting 5xx', async () => {
    await emu.failNext({ path: '/rate-limit-policies', status: 500, count: 10 });
    const r = await runCli(['policies', 'get', redirectId(), '--max-retries', '1'], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^svcadm: the service failed: .* \(still 500 after 1 retry\)\n$/);
  });

  it('exits 7 on a malformed JSON body', async () => {
    await emu.failNext({ path: '/rate-limit-policies', kind: 'malformed' });
    const r = await runCli(['policies', 'get', redirectId()], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^svcadm: malformed answer from the service: \d+ bytes that are not valid JSON\n$/);
  });

  it('exits 7 on a body cut short', async () => {
    await emu.failNext({ path: '/rate-limit-policies', kind: 'truncated', count: 10 });
    const r = await runCli(['policies', 'get', redirectId(), '--max-retries', '0'], { env });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
  });

  it('exits 7 when nothing listens', async () => {
    const closed = await startLoopback([]);
    await closed.close();
    const r = await runCli(['policies', 'get', 'p1', '--max-retries', '0'], {
      env: { ...env, SVCADM_DOMAIN: closed.url },
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(`svcadm: connection refused by ${new URL(closed.url).host}\n`);
  });

  it('makes one token request for consecutive commands (token cache)', async () => {
    await emu.clearRequests();
    for (let i = 0; i < 2; i++) expect((await runCli(['policies', 'get', redirectId()], { env })).code).toBe(0);
    const { counters } = await emu.requests();
    expect(counters.tokenRequests).toBe(1);
  });

  it('does not reuse a cached token once the secret changes, and never stores the secret', async () => {
    expect((await runCli(['policies', 'get', redirectId()], { env })).code).toBe(0);
    const cache = readFileSync(join(env.SVCADM_CONFIG_DIR ?? '', 'token-cache.json'), 'utf8');
    expect(cache).not.toContain(emu.admin.clientSecret);
    await emu.clearRequests();
    const r = await runCli(['policies', 'get', redirectId()], { env: { ...env, SVCADM_CLIENT_SECRET: 'rotated' } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect((await emu.requests()).counters.tokenRequests).toBe(1);
    const again = await runCli(['policies', 'get', redirectId()], { env });
    expect(again.code).toBe(0);
    expect((await emu.requests()).counters.tokenRequests).toBe(1);
  });

  it('drops a revoked cached token, fetches a new one and retries once', async () => {
    expect((await runCli(['policies', 'get', redirectId()], { env })).code).toBe(0);
    await emu.revokeTokens();
    await emu.clearRequests();
    const r = await runCli(['policies', 'get', redirectId()], { env });
    expect(r.code).toBe(0);
    expect((await emu.requests()).counters.tokenRequests).toBe(1);
  });

  it('never shows secrets or tokens in --debug', async () => {
    const token = await emu.token();
    const a = await runCli(['policies', 'get', redirectId(), '--debug'], { env });
    const b = await runCli(['policies', 'get', redirectId(), '--debug'], { env: { ...env, SVCADM_TOKEN: token } });
    expect(a.stderr).toContain('client_secret=[redacted]');
    for (const r of [a, b]) {
      expect(r.stderr).toMatch(
        /svcadm: debug: GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/rate-limit-policies\/\S+ → 200 OK in \d+ ms, rate limit \d+\/\d+ reset \d+/,
      );
      expect(r.stderr).not.toContain(emu.admin.clientSecret);
      expect(r.stderr).not.toContain(token.slice(0, 40));
      expect(r.stderr).not.toMatch(/eyJ[\w-]{10,}/);
    }
  });

  it('neutralises escape sequences from the service in tables', async () => {
    const hostile = await startLoopback([
      json(200, {
        id: 'p1',
        resource: 'oauth_authentication_api',
        consumer: 'client',
        consumer_selector: '\u001b]0;pwned\u0007\u001b[2Jdefault',
        configuration: { action: 'allow' },
      }),
    ]);
    try {
      const r = await runCli(['policies', 'get', 'p1'], {
        env: { ...env, SVCADM_DOMAIN: hostile.url, SVCADM_TOKEN: 't' },
        tty: { stdout: true },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('\u001b]0;');
      expect(r.stdout).not.toContain('\u0007');
      expect(r.stdout).not.toContain('\u001b[2J');
      expect(r.stdout).toContain('\\x1b]0;pwned\\x07\\x1b[2Jdefault');
    } finally {
      await hostile.close();
    }
  });

  it('percent-encodes the id in the path', async () => {
    await emu.clearRequests();
    await runCli(['policies', 'get', 'a/b?c#d'], { env });
    const { requests } = await emu.requests();
    expect(requests.at(-1)?.path).toBe('/api/v2/rate-limit-policies/a%2Fb%3Fc%23d');
  });
});
