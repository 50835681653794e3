import type { IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpClient, type HttpSettings } from '../../src/api/http.js';
import { classify, retryWaitMs } from '../../src/api/retry.js';
import { Interrupted, NetworkError, UsageError } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { json, startLoopback, startPlainTcp } from '../helpers/loopback-server.js';

const closeAfterTest = closeAfterEach();

function client(overrides: Partial<HttpSettings> = {}, trace: string[] = []) {
  return new HttpClient({
    timeoutMs: 2000,
    maxRetries: 3,
    clock: new VirtualClock(),
    random: () => 0,
    interrupt: new AbortController().signal,
    userAgent: 'svcadm-test',
    trace: (line) => trace.push(line),
    ...overrides,
  });
}

describe('HttpClient retries', () => {
  it('retries a GET on 429 and 5xx, then returns the success, waiting what was asked, else backing off', async () => {
    const server = await startLoopback([
      json(429, { message: 'Global limit has been reached' }, { 'retry-after': '2' }),
      json(503, { message: 'unavailable' }),
      json(200, { ok: true }),
    ]);
    closeAfterTest(server);
    const trace: string[] = [];
    const clock = new VirtualClock();
    const res = await client({ clock, random: () => 0.5 }, trace).request({
      method: 'GET',
      url: new URL(`${server.url}/x`),
      retry: 'read',
    });
    expect(res.status).toBe(200);
    expect(res.retries).toBe(2);
    expect(server.requests).toHaveLength(3);
    // Retry-After: 2 on the 429; full jitter of 250 ms × 2^1 (random 0.5) after the 503.
    expect(clock.sleeps).toEqual([2000, 250]);
    expect(trace.filter((l) => l.startsWith('retrying'))).toEqual([
      'retrying in 2000 ms (retry 1 of 3): 429 rate limited',
      'retrying in 250 ms (retry 2 of 3): 503 Service Unavailable',
    ]);
  });

  it('gives up after --max-retries and returns the last answer', async () => {
    const server = await startLoopback([json(429, {}, { 'retry-after': '0' })]);
    closeAfterTest(server);
    const res = await client({ maxRetries: 2 }).request({ method: 'GET', url: new URL(server.url), retry: 'read' });
    expect(res.status).toBe(429);
    expect(res.retries).toBe(2);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a DELETE on 5xx, nor the token POST on a 4xx', async () => {
    const server = await startLoopback([json(503, {}), json(401, { error: 'access_denied' }), json(200, {})]);
    closeAfterTest(server);
    const http = client();
    expect((await http.request({ method: 'DELETE', url: new URL(server.url), retry: 'write' })).status).toBe(503);
    expect((await http.request({ method: 'POST', url: new URL(server.url), body: 'a=b', retry: 'token' })).status).toBe(
      401,
    );
    expect(server.requests).toHaveLength(2);
  });

  it('retries a DELETE on 429', async () => {
    const server = await startLoopback([json(429, {}, { 'retry-after': '0' }), (_r, res) => res.writeHead(204).end()]);
    closeAfterTest(server);
    expect((await client().request({ method: 'DELETE', url: new URL(server.url), retry: 'write' })).status).toBe(204);
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
    closeAfterTest(server);
    const err = await client({ maxRetries: 0 })
      .request({ method: 'GET', url: new URL(server.url), retry: 'read' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
  });

  it('does not retry TLS to a server that does not speak it, and says so instead of what OpenSSL says', async () => {
    const plain = await startPlainTcp();
    closeAfterTest(plain);
    const { port } = plain;
    const err = await client({ maxRetries: 3 })
      .request({ method: 'GET', url: new URL(`https://127.0.0.1:${port}/x`), retry: 'read' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).message).toBe(
      `the server at 127.0.0.1:${port} does not speak TLS (is it plain http?)`,
    );
    expect((err as NetworkError).reason).toBe('plain_http');
    expect((err as NetworkError).subject).toBe(`http://127.0.0.1:${port}`);
    expect(plain.connections()).toBe(1);
  });

  it('times out a request that gets no answer', async () => {
    let arrived: () => void = () => {};
    const request = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await startLoopback([() => arrived()]);
    closeAfterTest(server);
    const clock = new VirtualClock();
    const pending = client({ timeoutMs: 100, maxRetries: 0, clock })
      .request({ method: 'GET', url: new URL(server.url), retry: 'read' })
      .catch((e: unknown) => e);
    await request;
    clock.advance(99);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(1);
    const err = await pending;
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

describe('HttpClient, Ctrl-C', () => {
  it('ends every request still in flight, also after one between them was answered, and no other', async () => {
    let waiting = 0;
    let allWaiting: () => void = () => {};
    const threeWaiting = new Promise<void>((resolve) => {
      allWaiting = resolve;
    });
    const server = await startLoopback([
      (req, res) => {
        if (req.url === '/answered') return json(200, { ok: true })(req, res);
        if (++waiting === 3) allWaiting();
      },
    ]);
    closeAfterTest(server);
    const interrupt = new AbortController();
    const http = client({ interrupt: interrupt.signal, maxRetries: 0 });
    const get = (path: string) => http.request({ method: 'GET', url: new URL(`${server.url}${path}`), retry: 'read' });
    const a = get('/a').catch((e: unknown) => e);
    const answered = get('/answered');
    const b = get('/b').catch((e: unknown) => e);
    // Answered while /a and /b wait: its place among the requests in flight is taken by another.
    expect((await answered).status).toBe(200);
    const c = get('/c').catch((e: unknown) => e);
    await threeWaiting;
    const outcomes: unknown[] = [];
    [a, b, c].forEach((p, k) => void p.then((outcome) => (outcomes[k] = outcome)));
    interrupt.abort();
    // At once: before the event loop's next turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect([0, 1, 2].map((k) => (outcomes[k] instanceof Interrupted ? 'interrupted' : outcomes[k]))).toEqual([
      'interrupted',
      'interrupted',
      'interrupted',
    ]);
    expect(server.requests.map((r) => r.url).sort()).toEqual(['/a', '/answered', '/b', '/c']);
  });
});

describe('the retry rule', () => {
  const now = Date.UTC(2026, 0, 1);
  /** The wait before retry `attempt` of a GET that got `status` with `headers`. */
  const waitFor = (attempt: number, headers: IncomingHttpHeaders, status: number, random: () => number) =>
    retryWaitMs(attempt, classify('read', { status, statusText: '', headers }, now), random);

  it('prefers Retry-After, in seconds or as a date', () => {
    expect(waitFor(0, { 'retry-after': '3' }, 429, () => 0.5)).toBe(3000);
    expect(waitFor(0, { 'retry-after': new Date(now + 5000).toUTCString() }, 503, () => 0.5)).toBe(5000);
  });
  it('then the rate-limit reset of a 429, in UNIX seconds, plus 0–20 % jitter', () => {
    expect(waitFor(0, { 'x-ratelimit-reset': String(now / 1000 + 2) }, 429, () => 0)).toBe(2000);
    expect(waitFor(0, { 'x-ratelimit-reset': String(now / 1000 + 2) }, 429, () => 0.5)).toBe(2200);
    expect(waitFor(0, { 'x-ratelimit-reset': String(now / 1000 + 50) }, 429, () => 1)).toBe(60_000);
  });
  it('does not retry a request whose server asks for longer than 60 s; the event stream caps the wait instead', () => {
    const long = { status: 429, statusText: '', headers: { 'retry-after': '61' } };
    expect(classify('read', long, now)).toMatchObject({ retry: false, tooLong: true, askedMs: 61_000 });
    expect(classify('token', long, now)).toMatchObject({ retry: false, tooLong: true });
    expect(classify('stream', long, now)).toMatchObject({ retry: true, askedMs: 61_000 });
    expect(classify('read', { ...long, headers: { 'retry-after': '60' } }, now)).toMatchObject({ retry: true });
  });
  it('else exponential backoff with full jitter, capped at 60 s', () => {
    expect(waitFor(0, {}, 503, () => 0.5)).toBe(125);
    expect(waitFor(3, {}, 503, () => 1)).toBe(2000);
    expect(waitFor(20, {}, 503, () => 1)).toBe(60_000);
  });
  it.each([
    ['read', 408, true],
    ['read', 500, true],
    ['read', 404, false],
    ['token', 408, false],
    ['token', 503, true],
    ['write', 503, false],
    ['write', 429, true],
    ['stream', 408, true],
    ['stream', 410, false],
    ['forward', 200, false],
    ['forward', 204, false],
    ['forward', 302, true],
    ['forward', 400, true],
    ['forward', 410, true],
    ['forward', 500, true],
  ] as const)('%s: %i is retried: %s', (policy, status, retry) => {
    expect(classify(policy, { status, statusText: '', headers: {} }, now).retry).toBe(retry);
  });
  it.each([
    ['read', 'ECONNRESET', false, true],
    ['read', 'ENOTFOUND', true, false],
    ['write', 'ECONNRESET', false, false],
    ['write', 'ECONNREFUSED', false, true],
    ['write', 'TIMEOUT', false, false],
    ['forward', 'TIMEOUT', false, true],
    ['forward', 'ECONNRESET', false, true],
    ['forward', 'TLS', true, false],
  ] as const)('%s: a %s failure (permanent: %s) is retried: %s', (policy, code, permanent, retry) => {
    expect(classify(policy, { failure: { code, message: code, permanent } }, now).retry).toBe(retry);
  });
});

describe('HttpClient, a request made ahead (hold)', () => {
  it('takes no answer that came before the held request was sent: the answer is the one given to the request', async () => {
    // A server whose first connection answers at once, before anything is asked; every connection answers requests.
    const sockets: Socket[] = [];
    let firstClosed: () => void = () => {};
    const firstClosedAt = new Promise<void>((done) => {
      firstClosed = done;
    });
    const server = createNetServer((socket) => {
      sockets.push(socket);
      if (sockets.length === 1) {
        socket.on('close', () => firstClosed());
        socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      }
      let seen = '';
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.toString('latin1');
        if (!seen.includes('\r\n\r\nasked')) return;
        seen = '';
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closeAfterTest({
      close: () =>
        new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        }),
    });
    const http = client();
    const req = {
      method: 'POST' as const,
      url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
      body: 'asked',
      retry: 'forward' as const,
      maxRetries: 0,
      statusOnly: true,
      direct: true,
      sequential: true,
    };
    const held = http.hold(req);
    expect(held).toBeDefined();
    // The held request meets the answer nobody asked for and ends its connection unused.
    await firstClosedAt;
    const res = await http.request({ ...req, held });
    expect(res.status).toBe(200);
    expect(sockets).toHaveLength(2);
    http.close();
  });
});
