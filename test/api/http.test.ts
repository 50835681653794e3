import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient, type HttpSettings } from '../../src/api/http.js';
import { retryWaitMs } from '../../src/api/retry-wait.js';
import { NetworkError, UsageError } from '../../src/errors.js';
import { json, startLoopback, startPlainTcp } from '../helpers/loopback-server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function client(overrides: Partial<HttpSettings> = {}, trace: string[] = []) {
  return new HttpClient({
    timeoutMs: 2000,
    maxRetries: 3,
    now: () => Date.now(),
    random: () => 0,
    interrupt: new AbortController().signal,
    userAgent: 'svcadm-test',
    trace: (line) => trace.push(line),
    ...overrides,
  });
}

describe('HttpClient retries', () => {
  it('retries a GET on 429 and 5xx, then returns the success', async () => {
    const server = await startLoopback([
      json(429, { message: 'Global limit has been reached' }, { 'retry-after': '0' }),
      json(503, { message: 'unavailable' }),
      json(200, { ok: true }),
    ]);
    close = server.close;
    const trace: string[] = [];
    const res = await client({}, trace).request({ method: 'GET', url: new URL(`${server.url}/x`), retry: 'read' });
    expect(res.status).toBe(200);
    expect(res.retries).toBe(2);
    expect(server.requests).toHaveLength(3);
    expect(trace.filter((l) => l.startsWith('retrying'))).toEqual([
      'retrying in 0 ms (retry 1 of 3): 429 rate limited',
      'retrying in 0 ms (retry 2 of 3): 503 Service Unavailable',
    ]);
  });

  it('gives up after --max-retries and returns the last answer', async () => {
    const server = await startLoopback([json(429, {}, { 'retry-after': '0' })]);
    close = server.close;
    const res = await client({ maxRetries: 2 }).request({ method: 'GET', url: new URL(server.url), retry: 'read' });
    expect(res.status).toBe(429);
    expect(res.retries).toBe(2);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a DELETE on 5xx, nor the token POST on a 4xx', async () => {
    const server = await startLoopback([json(503, {}), json(401, { error: 'access_denied' }), json(200, {})]);
    close = server.close;
    const http = client();
    expect((await http.request({ method: 'DELETE', url: new URL(server.url), retry: 'delete' })).status).toBe(503);
    expect((await http.request({ method: 'POST', url: new URL(server.url), body: 'a=b', retry: 'token' })).status).toBe(
      401,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('retries a DELETE on 429', async () => {
    const server = await startLoopback([json(429, {}, { 'retry-after': '0' }), (_r, res) => res.writeHead(204).end()]);
    close = server.close;
    expect((await client().request({ method: 'DELETE', url: new URL(server.url), retry: 'delete' })).status).toBe(204);
    expect(server.requests).toHaveLength(2);
  });

  it('turns a body cut short into a network error', async () => {
    const server = await startLoopback([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":');
        res.destroy();
      },
    ]);
    close = server.close;
    const err = await client({ maxRetries: 0 })
      .request({ method: 'GET', url: new URL(server.url), retry: 'read' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
  });

  it('does not retry a TLS failure: trying again cannot fix a certificate or a protocol', async () => {
    const plain = await startPlainTcp();
    close = plain.close;
    const { port } = plain;
    const err = await client({ maxRetries: 3 })
      .request({ method: 'GET', url: new URL(`https://127.0.0.1:${port}/x`), retry: 'read' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toMatch(/^TLS failure talking to 127\.0\.0\.1:\d+: /);
    expect((err as NetworkError).hint).toBe('check the tenant domain; a private CA goes in NODE_EXTRA_CA_CERTS');
    expect(plain.connections()).toBe(1);
  });

  it('times out a request that gets no answer', async () => {
    const server = await startLoopback([() => {}]);
    close = server.close;
    const err = await client({ timeoutMs: 100, maxRetries: 0 })
      .request({ method: 'GET', url: new URL(server.url), retry: 'read' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(/^no answer from 127\.0\.0\.1:\d+ within 0\.1s$/);
  });

  it('refuses to send more than 1 MB', async () => {
    const err = await client()
      .request({
        method: 'POST',
        url: new URL('http://127.0.0.1:9/'),
        body: 'x'.repeat(1024 * 1024 + 1),
        retry: 'token',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
  });
});

describe('retryWaitMs', () => {
  const now = Date.UTC(2026, 0, 1);
  it('prefers Retry-After, in seconds or as a date', () => {
    expect(retryWaitMs(0, { 'retry-after': '3' }, 429, now, () => 0.5)).toBe(3000);
    expect(retryWaitMs(0, { 'retry-after': new Date(now + 5000).toUTCString() }, 503, now, () => 0.5)).toBe(5000);
  });
  it('then the rate-limit reset of a 429, in UNIX seconds', () => {
    expect(retryWaitMs(0, { 'x-ratelimit-reset': String(now / 1000 + 2) }, 429, now, () => 0.5)).toBe(2000);
  });
  it('else exponential backoff with full jitter, capped at 60 s', () => {
    expect(retryWaitMs(0, {}, 503, now, () => 0.5)).toBe(125);
    expect(retryWaitMs(3, {}, 503, now, () => 1)).toBe(2000);
    expect(retryWaitMs(20, {}, 503, now, () => 1)).toBe(60_000);
    expect(retryWaitMs(0, { 'retry-after': '3600' }, 429, now, () => 1)).toBe(60_000);
  });
});
