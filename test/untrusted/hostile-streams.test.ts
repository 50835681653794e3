import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GivenToken } from '../../src/api/auth.js';
import { ApiClient } from '../../src/api/client.js';
import { HttpClient } from '../../src/api/http.js';
import { systemClock } from '../../src/clock.js';
import { subscribeEvents, type TailItem } from '../../src/events/stream/subscription.js';
import { VirtualClock } from '../helpers/clock.js';
import {
  answerJson,
  type Behaviour,
  eventData,
  eventIds,
  hostileServerPerTest,
  sse,
  sseMessage,
} from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const START = Date.UTC(2026, 3, 1, 12);
const AT_START = '2026-04-01T12:00:00Z';

const hostile = hostileServerPerTest();

describe('a server that ignores from and replays', () => {
  it('prints each event once with one warning, never moves the cursor back, and a replay is no progress', async () => {
    // Every connection: the same three events, then an old heartbeat offset, then the end.
    const server = await hostile({
      api: sse([
        sseMessage('c1', 'user.created', eventData('c1', 'e1')),
        sseMessage('c2', 'user.created', eventData('c2', 'e2')),
        sseMessage('c3', 'user.created', eventData('c3', 'e3')),
        sseMessage('c1', 'offset-only', '{"offset":"c1"}'),
      ]),
    });
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const clock = new VirtualClock(START);
    const r = await runCli(['events', 'tail', '--cursor-file', file, '--max-reconnects', '2', '--quiet'], {
      env,
      clock,
    });
    expect(eventIds(r.stdout)).toEqual(['e1', 'e2', 'e3']);
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      'svcadm: warning: the service sent events again that were already seen; dropping repeats\n' +
        `svcadm: the service closed the event stream — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from c3 --cursor-file ${file}\n`,
    );
    // The first connection made progress; the two replays did not: the backoff grows, --max-reconnects trips.
    expect(clock.sleeps).toEqual([1125, 2250]);
    expect(server.apiRequests().map((q) => q.query.get('from'))).toEqual([null, 'c3', 'c3']);
    expect(readFileSync(file, 'utf8')).toBe('c3\n');
  });
});

describe('a reconnect storm', () => {
  it('retry: 0 and a new heartbeat offset per connection: the backoff keeps growing', async () => {
    let n = 0;
    const fresh: Behaviour = (req, res) => {
      n++;
      sse([`retry: 0\n\n`, sseMessage(`hb-${n}`, 'offset-only', `{"offset":"hb-${n}"}`)])(req, res);
    };
    const server = await hostile({ api: fresh });
    const clock = new VirtualClock(START);
    const r = await runCli(['events', 'tail', '--duration', '15s', '--quiet'], { env: server.env(), clock });
    expect(r.code).toBe(0);
    // 100 ms floor, doubled each time without an event, 12.5% jitter: 8 connections in 15 s, not 130.
    expect(clock.sleeps).toEqual([113, 225, 450, 900, 1800, 3600, 7200, 14_400]);
    expect(server.apiRequests()).toHaveLength(8);
  });

  it('a 401 on every other request: at most one new token a minute, not one per reconnect', async () => {
    let n = 0;
    const flaky: Behaviour = (req, res) => {
      n++;
      if (n % 2 === 1) answerJson(401, { message: 'Invalid token' })(req, res);
      else sse([`retry: 0\n\n`, sseMessage(`hb-${n}`, 'offset-only', `{"offset":"hb-${n}"}`)])(req, res);
    };
    const server = await hostile({ api: flaky });
    const env = server.env();
    const clock = new VirtualClock(START);
    const r = await runCli(['events', 'tail', '--duration', '15s', '--quiet'], { env, clock });
    // The first token, and one refresh for the first 401; the next 401 waits for the minute to pass.
    expect(server.tokenRequests()).toHaveLength(2);
    expect(server.apiRequests()).toHaveLength(3);
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `svcadm: the event stream has been down since ${AT_START}: authentication failed: Invalid token — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from hb-2\n`,
    );
  });
});

describe('an answer that is not an event stream', () => {
  it('a 200 text/html (a proxy login page) is exit 7 at once: nothing retried, the token sent once', async () => {
    const server = await hostile({
      api: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>Sign in</html>');
      },
    });
    const r = await runCli(['events', 'tail', '--duration', '1h'], { env: server.env() });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'svcadm: the event stream answered 200 with text/html; charset=utf-8, not text/event-stream — a proxy or a login page may stand between svcadm and the tenant: check --domain and the proxy settings\n',
    });
    expect(server.apiRequests()).toHaveLength(1);
  });
});

describe('a stream of nothing but comments', () => {
  it('is dead after the idle bound however many comments it sends, and is reconnected', async () => {
    // Real time at a small bound (the CLI's is 2 minutes): a comment every 20 ms, the bound 300 ms.
    const timers: NodeJS.Timeout[] = [];
    const server = await hostile({
      api: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        timers.push(setInterval(() => res.write(': still here\n\n'), 20));
      },
    });
    const http = new HttpClient({
      timeoutMs: 5000,
      maxRetries: 0,
      clock: systemClock,
      random: () => 0.5,
      interrupt: new AbortController().signal,
      userAgent: 'svcadm-test',
    });
    const api = new ApiClient(http, new GivenToken('a-token'), `${server.url}/api/v2`);
    const items: TailItem[] = [];
    let failure: unknown;
    try {
      for await (const batch of subscribeEvents({
        api,
        types: [],
        maxReconnects: 0,
        signal: new AbortController().signal,
        clock: systemClock,
        random: () => 0.5,
        idleMs: 300,
      })) {
        items.push(...batch);
      }
    } catch (err) {
      failure = err;
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
    expect(items).toEqual([{ kind: 'connected', attempt: 0 }]);
    expect((failure as Error).message).toBe(
      'the event stream sent nothing but comments, or nothing at all, for too long',
    );
  });
});
