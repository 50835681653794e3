import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { answerJson, type Behaviour, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

/** 2026-11-23 21:00:00 UTC: the waits below are read off this virtual clock. */
const START = Date.UTC(2026, 10, 23, 21, 0, 0);
const policy = answerJson(200, { id: 'rlp_1', name: 'p' });
const noContent: Behaviour = (_req, res) => res.writeHead(204).end();

describe('waits the service asks for (issue 17 item 9, issue 18 item 4)', () => {
  it('fails at once when a 429 asks for longer than svcadm ever waits (Retry-After: 3600): exit 6, when to try again', async () => {
    const clock = new VirtualClock(START);
    const server = await hostile({
      api: answerJson(429, { message: 'Too many requests' }, { 'retry-after': '3600' }),
    });
    const r = await runCli(['api', '/rate-limit-policies/rlp_1'], { env: server.env(), clock });
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr:
        'svcadm: rate limited: Too many requests; the service asks to wait 60 min — try again after 2026-11-23T22:00:00Z\n',
    });
    expect(server.apiRequests()).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('fails at once on a 503 that asks for an hour: exit 7, when to try again', async () => {
    const clock = new VirtualClock(START);
    const server = await hostile({ api: answerJson(503, { message: 'maintenance' }, { 'retry-after': '3600' }) });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env(), clock });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'svcadm: the service failed: maintenance; the service asks to wait 60 min — try again after 2026-11-23T22:00:00Z\n',
    });
    expect(server.apiRequests()).toHaveLength(1);
  });

  it('announces a wait over 2 s on stderr, not with --quiet, and not one of 2 s', async () => {
    const slow = answerJson(429, { message: 'slow down' }, { 'retry-after': '5' });
    const clock = new VirtualClock(START);
    const server = await hostile({
      api: [slow, policy, slow, policy, answerJson(429, {}, { 'retry-after': '2' }), policy],
    });
    const told = await runCli(['api', '/rate-limit-policies/rlp_1'], { env: server.env(), clock });
    expect(told).toEqual({
      code: 0,
      stdout: '{\n  "id": "rlp_1",\n  "name": "p"\n}\n',
      stderr: 'svcadm: 429 rate limited: waiting 5s, as the service asked (retry 1 of 5)\n',
    });
    const quiet = await runCli(['api', '/rate-limit-policies/rlp_1', '-q'], { env: server.env(), clock });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    const short = await runCli(['api', '/rate-limit-policies/rlp_1'], { env: server.env(), clock });
    expect(short).toMatchObject({ code: 0, stderr: '' });
    expect(clock.sleeps).toEqual([5000, 5000, 2000]);
  });

  it('waits until X-RateLimit-Reset plus 0–20 % jitter from the random source when a 429 has no Retry-After', async () => {
    const clock = new VirtualClock(START);
    const reset = String(START / 1000 + 10);
    const server = await hostile({ api: [answerJson(429, {}, { 'x-ratelimit-reset': reset }), policy] });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: server.env(), clock });
    expect(r.code).toBe(0);
    // runCli's random source gives 0.5: 10 s plus 10 %.
    expect(clock.sleeps).toEqual([11_000]);
    expect(r.stderr).toBe('svcadm: 429 rate limited: waiting 11s, as the service asked (retry 1 of 5)\n');
  });

  it('fails at once when X-RateLimit-Reset is further away than svcadm ever waits', async () => {
    const clock = new VirtualClock(START);
    const reset = String(START / 1000 + 2 * 3600);
    const server = await hostile({ api: answerJson(429, { message: 'quota' }, { 'x-ratelimit-reset': reset }) });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env(), clock });
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr: 'svcadm: rate limited: quota; the service asks to wait 2 h — try again after 2026-11-23T23:00:00Z\n',
    });
    expect(clock.sleeps).toEqual([]);
  });

  it('fails at once when the token service answers 429 for longer than svcadm waits: exit 6, when the quota resets', async () => {
    const clock = new VirtualClock(START);
    const server = await hostile({
      token: answerJson(
        429,
        { error: 'too_many_requests', error_description: 'Quota exceeded' },
        { 'retry-after': '3600' },
      ),
      api: policy,
    });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env(), clock });
    expect(r).toEqual({
      code: 6,
      stdout: '',
      stderr:
        "svcadm: the token service's quota is used up: Quota exceeded; it resets in 60 min — try again after 2026-11-23T22:00:00Z\n",
    });
    expect(server.tokenRequests()).toHaveLength(1);
    expect(server.apiRequests()).toHaveLength(0);
  });
});

describe('DELETE /connections/{id}/users is idempotent: retried like a read (issue 18, item 4)', () => {
  it('svcadm api DELETE on that path is retried on 503; on another path it is not', async () => {
    const clock = new VirtualClock(START);
    const server = await hostile({
      api: [answerJson(503, { message: 'down' }), noContent, answerJson(503, { message: 'down' })],
    });
    const retried = await runCli(
      ['api', 'DELETE', '/connections/con_1/users', '-f', 'email=bob@example.com', '--yes', '--correlation-id', 'd1'],
      { env: server.env(), clock },
    );
    expect(retried).toEqual({ code: 0, stdout: '', stderr: 'Correlation id: d1\n' });
    const other = await runCli(['api', 'DELETE', '/roles/r1', '--yes', '--correlation-id', 'd2'], {
      env: server.env(),
      clock,
    });
    expect(other).toEqual({
      code: 7,
      stdout: '',
      stderr: 'Correlation id: d2\nsvcadm: the service failed: down — correlation id d2\n',
    });
    expect(server.apiRequests().map((q) => [q.method, q.path])).toEqual([
      ['DELETE', '/api/v2/connections/con_1/users'],
      ['DELETE', '/api/v2/connections/con_1/users'],
      ['DELETE', '/api/v2/roles/r1'],
    ]);
  });
});
