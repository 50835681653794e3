import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulatorAndToken } from '../helpers/emulator.js';
import { api } from './support.js';

let emu: TestEmulator;
let token: string;
withFileEmulatorAndToken({ eventRate: 0 }, (started) => ({ emu, token } = started));

const policyPath = () => `/rate-limit-policies/${emu.fixtures.policyIds[0]}`;

describe('rate limits', () => {
  it('puts X-RateLimit-* on every interface response, reset in UNIX seconds', async () => {
    for (const path of [policyPath(), '/rate-limit-policies/rlp_missing', '/nothing']) {
      const answer = await api(emu, path, { token });
      expect(Number(answer.headers['x-ratelimit-limit'])).toBe(100);
      expect(Number(answer.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
      const reset = Number(answer.headers['x-ratelimit-reset']);
      expect(Math.abs(reset - Date.now() / 1000)).toBeLessThan(5);
    }
    const unauthenticated = await api(emu, policyPath(), { token: null });
    expect(unauthenticated.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('answers 429 with Retry-After once the bucket is empty', async () => {
    await emu.updateSettings({ rateLimit: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await api(emu, policyPath(), { token }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    const limited = answers[3];
    expect(limited?.json).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Global limit has been reached',
      errorCode: 'too_many_requests',
    });
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('payload size', () => {
  it('413s a body over 1 MB', async () => {
    const answer = await api(emu, policyPath(), {
      token,
      method: 'GET',
      headers: { 'content-type': 'application/json' },
      body: undefined,
    });
    expect(answer.status).toBe(200);
    const big = await fetch(`${emu.apiUrl}${policyPath()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: `"${'x'.repeat(1024 * 1024)}"`,
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ statusCode: 413, errorCode: 'payload_too_large' });
  });
});

describe('faults through the control API', () => {
  it('injects 429 bursts with Retry-After 0, then recovers', async () => {
    await emu.rateLimitNext('/rate-limit-policies', 2, 0);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const answer = await api(emu, policyPath(), { token });
      statuses.push(answer.status);
      if (answer.status === 429) expect(answer.headers['retry-after']).toBe('0');
    }
    expect(statuses).toEqual([429, 429, 200]);
  });

  it('injects 5xx, malformed and truncated bodies and connection resets', async () => {
    await emu.failNext({ path: '/rate-limit-policies', status: 502 });
    expect((await api(emu, policyPath(), { token })).status).toBe(502);
    await emu.failNext({ path: '/rate-limit-policies', kind: 'malformed' });
    const malformed = await api(emu, policyPath(), { token });
    expect(malformed.status).toBe(200);
    expect(() => JSON.parse(malformed.text)).toThrow();
    await emu.failNext({ path: '/rate-limit-policies', kind: 'truncated' });
    await expect(api(emu, policyPath(), { token })).rejects.toThrow();
    await emu.failNext({ path: '/rate-limit-policies', kind: 'reset' });
    await expect(api(emu, policyPath(), { token })).rejects.toThrow();
    expect((await api(emu, policyPath(), { token })).status).toBe(200);
  });

  it('injects failures into the token endpoint and only for the given method', async () => {
    await emu.failNext({ path: '/oauth/token', status: 503 });
    await expect(emu.token()).rejects.toThrow(/503/);
    await emu.failNext({ path: '/connections', method: 'DELETE', status: 500 });
    expect((await api(emu, policyPath(), { token })).status).toBe(200);
    const del = await api(emu, `/connections/${emu.fixtures.databaseConnectionId}/users?email=alice%40example.com`, {
      token,
      method: 'DELETE',
    });
    expect(del.status).toBe(500);
  });

  it('adds latency', async () => {
    await emu.setLatency(120);
    const started = performance.now();
    await api(emu, policyPath(), { token });
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('fails a seeded share of requests with failRate', async () => {
    await emu.updateSettings({ failRate: 1 });
    const answer = await api(emu, policyPath(), { token });
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ statusCode: 503 });
  });

  it('counts and records requests; reset clears them', async () => {
    await emu.clearRequests();
    await api(emu, `${policyPath()}?x=%2B`, { token, headers: { 'X-Correlation-ID': 'abc' } });
    const { requests, counters } = await emu.requests();
    expect(counters).toMatchObject({ tokenRequests: 0, interfaceRequests: 1 });
    expect(requests[0]).toMatchObject({ method: 'GET', kind: 'interface', query: 'x=%2B', status: 400 });
    expect(requests[0]?.headers['x-correlation-id']).toBe('abc');
    await emu.reset();
    expect((await emu.requests()).counters.interfaceRequests).toBe(0);
  });

  it('is absent unless enabled', async () => {
    const { startEmulator } = await import('../../src/emulator/server.js');
    const plain = await startEmulator({ eventRate: 0 });
    try {
      expect((await fetch(`${plain.url}/__emulator/requests`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
