import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { loopbackPerTest, type Recorded, refusedPort } from '../helpers/loopback-server.js';
import { BIN, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { runInScriptTerminal } from '../helpers/script-terminal.js';

const startEmulator = emulatorPerTest();
// Registered after the emulator's: the receivers are closed first.
const loopback = loopbackPerTest();

function emulator(): Promise<TestEmulator> {
  return startEmulator({ events: 200, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
}

function envOf(e: TestEmulator): Record<string, string> {
  return emulatorEnv(e, { NO_COLOR: '1' });
}

/** What the app does with one delivery attempt. */
type Reply = number | 'hang' | 'reset' | { status: number; headers?: Record<string, string>; body?: string };

/**
 * A loopback app that answers each attempt as `reply` says (given the attempt's number and how often this event was
 * tried before) and records every attempt; `onRequest` runs as each arrives (e.g. to read the cursor file).
 */
async function app(
  reply: (attempt: number, tries: number, req: Recorded) => Reply,
  opts: { clock?: VirtualClock; onRequest?: (req: Recorded) => void } = {},
) {
  const tries = new Map<string, number>();
  let attempt = 0;
  const server = await loopback([
    (req, res: ServerResponse) => {
      opts.onRequest?.(req);
      const offset = String(req.headers['svcadm-offset']);
      const before = tries.get(offset) ?? 0;
      tries.set(offset, before + 1);
      const answer = reply(attempt++, before, req);
      if (answer === 'hang') {
        // The attempt's time limit runs on the virtual clock: move it to --forward-timeout's 10 s default.
        opts.clock?.advance(10_000);
        return;
      }
      if (answer === 'reset') {
        res.socket?.destroy();
        return;
      }
      const { status, headers = {}, body = '' } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, headers);
      res.end(body);
    },
  ]);
  return { ...server, hook: `${server.url}/hooks/svcadm?key=k1` };
}

/** The NDJSON a plain tail prints for the same events: what forwarding must deliver, in this order. */
async function plainTail(env: Record<string, string>, count: number): Promise<string[]> {
  const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', String(count)], { env });
  expect(r.code).toBe(0);
  return r.stdout.trim().split('\n');
}

function offsetOf(line: string): string {
  return (JSON.parse(line) as { offset: string }).offset;
}

/** How a receiver checks svcadm-signature: HMAC-SHA256 over `<t>.<raw body>`, compared in constant time. */
function verify(secret: string, header: string | string[] | undefined, rawBody: string): number | undefined {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!match) return undefined;
  const [, t, given] = match as unknown as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex')) ? Number(t) : undefined;
}

describe('events tail --forward-to', () => {
  it('POSTs each payload in stream order, signed, and prints what was acknowledged', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 5);
    const clock = new VirtualClock(Date.parse('2026-03-01T12:00:00Z'));
    const receiver = await app(() => 204);
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '5', '--forward-to', receiver.hook], {
      env,
      clock,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(expected);
    const secret = /signing secret (whsec_[A-Za-z0-9+/]{32}) /.exec(r.stderr)?.[1] ?? '';
    const types = expected.map((line) => (JSON.parse(line) as { type: string }).type);
    const width = Math.max(...types.map((t) => t.length));
    expect(r.stderr).toBe(
      [
        `Forwarding events to ${receiver.hook} — signing secret ${secret} (set SVCADM_FORWARD_SECRET to keep one)`,
        'svcadm: reached --max-events after 5 events: 5 forwarded',
        ...types.map((t) => `  ${t.padEnd(width)}  1 forwarded`),
        '',
      ].join('\n'),
    );
    expect(receiver.requests.map((q) => q.body)).toEqual(expected);
    for (const [i, q] of receiver.requests.entries()) {
      const payload = JSON.parse(expected[i] as string) as { type: string; offset: string };
      expect(q.method).toBe('POST');
      expect(q.url).toBe('/hooks/svcadm?key=k1');
      expect(q.headers['content-type']).toBe('application/json');
      expect(q.headers['svcadm-event-type']).toBe(payload.type);
      expect(q.headers['svcadm-offset']).toBe(payload.offset);
      expect(q.headers['idempotency-key']).toBe((payload as unknown as { event: { id: string } }).event.id);
      expect(q.headers['svcadm-attempt']).toBe('1');
      expect(q.headers.authorization).toBeUndefined();
      expect(verify(secret, q.headers['svcadm-signature'], q.body)).toBe(Date.parse('2026-03-01T12:00:00Z') / 1000);
      expect(verify('fwsec_someone-else-secret-000000', q.headers['svcadm-signature'], q.body)).toBeUndefined();
      expect(verify(secret, q.headers['svcadm-signature'], `${q.body} `)).toBeUndefined();
    }
  });

  it('sends one event at a time over one connection, each at its first attempt, the next made while the app has the one before', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 40);
    /** The app's side: each connection, and each request as it arrived while another was still unanswered. */
    const seen = { connections: 0, bodies: [] as string[], attempts: [] as string[], overlapping: 0, answering: 0 };
    for (const closeEach of [false, true]) {
      seen.connections = 0;
      seen.bodies = [];
      seen.attempts = [];
      const server = createServer((req, res) => {
        if (seen.answering > 0) seen.overlapping++;
        seen.answering++;
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          seen.bodies.push(Buffer.concat(chunks).toString());
          seen.attempts.push(String(req.headers['svcadm-attempt']));
          seen.answering--;
          // An app that closes each connection after its answer: the next event's request, made ahead on the
          // connection, is made again on a new one, still at its first attempt.
          res.writeHead(204, closeEach ? { connection: 'close' } : {}).end();
        });
      });
      server.on('connection', () => seen.connections++);
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      try {
        const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '40', '--forward-to', url, '-q'], {
          env,
        });
        expect(r.code, r.stderr).toBe(0);
        expect(seen.bodies).toEqual(expected);
        expect(seen.attempts).toEqual(expected.map(() => '1'));
        expect(seen.overlapping).toBe(0);
        expect(seen.connections).toBe(closeEach ? 40 : 1);
      } finally {
        server.closeAllConnections();
        await new Promise((done) => server.close(done));
      }
    }
  });

  it('delivers a large event intact among small ones while the app is slow: its pieces are kept whatever arrives after them', async () => {
    const e = await emulator();
    const env = envOf(e);
    const tags = Array.from({ length: 6000 }, (_, i) => `item-${i}-${'x'.repeat(60)}`);
    const small = await e.emit('user.created', 40);
    await e.emitEvent({ type: 'user.updated', object: { name: 'big', tags } });
    await e.emit('user.deleted', 40);
    const from = ['--from', small.before];
    const plain = await runCli(['events', 'tail', ...from, '--max-events', '81'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    const expected = plain.stdout.trim().split('\n');
    expect(expected.some((line) => line.length > 400_000)).toBe(true);
    // An app slow enough that the stream's next chunks arrive while svcadm waits for it.
    const app = await loopback([(_req, res) => setTimeout(() => res.writeHead(204).end(), 2)]);
    const r = await runCli(['events', 'tail', ...from, '--max-events', '81', '--forward-to', `${app.url}/hook`, '-q'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(app.requests.map((q) => q.body)).toEqual(expected);
    expect(r.stdout.trim().split('\n')).toEqual(expected);
  });

  it('signs with --forward-secret or SVCADM_FORWARD_SECRET, and announces as JSON when JSON was asked for', async () => {
    const e = await emulator();
    const receiver = await app(() => 200);
    const secret = 'whsec-0123456789abcdef';
    const flag = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--forward-to',
        receiver.hook,
        '--forward-secret',
        secret,
      ],
      { env: envOf(e) },
    );
    expect(flag.stderr.split('\n').slice(0, 2)).toEqual([
      'svcadm: warning: --forward-secret leaks into shell history and the process list; prefer SVCADM_FORWARD_SECRET',
      `Forwarding events to ${receiver.hook}`,
    ]);
    const fromEnv = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '1', '--forward-to', receiver.hook, '-o', 'ndjson'],
      { env: { ...envOf(e), SVCADM_FORWARD_SECRET: secret } },
    );
    expect(fromEnv.stderr.split('\n')[0]).toBe(`{"forward_to":"${receiver.hook}"}`);
    const generated = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '1', '--forward-to', receiver.hook, '--json', '-q'],
      { env: envOf(e) },
    );
    const announced = JSON.parse(generated.stderr.split('\n')[0] as string) as {
      forward_to: string;
      signing_secret: string;
    };
    expect(announced.forward_to).toBe(receiver.hook);
    for (const [i, key] of [secret, secret, announced.signing_secret].entries()) {
      const q = receiver.requests[i] as Recorded;
      expect(verify(key, q.headers['svcadm-signature'], q.body)).toBeTypeOf('number');
    }
  });

  it('survives an app that fails, times out, drops the connection, talks too much and recovers: nothing lost, repeated or reordered', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 8);
    const clock = new VirtualClock();
    const file = join(tempConfigDir(), 'cursor');
    const acknowledged: string[] = [];
    const offsets = expected.map(offsetOf);
    const seconds: number[] = [];
    const receiver = await app(
      (_attempt, tries, req) => {
        const index = offsets.indexOf(String(req.headers['svcadm-offset']));
        const script: Record<number, Reply[]> = {
          1: [500, 502],
          3: ['hang'],
          4: [{ status: 503, headers: { 'retry-after': '3' } }],
          5: ['reset'],
          6: [{ status: 200, body: 'x'.repeat(100 * 1024) }],
        };
        const answer = script[index]?.[tries] ?? 200;
        if (answer === 200 || (typeof answer === 'object' && answer.status === 200)) acknowledged.push(req.body);
        return answer;
      },
      {
        clock,
        onRequest: () => {
          // The second of each attempt, which its signature must name (an event made ready ahead of a 3 s wait too).
          seconds.push(Math.floor(clock.now() / 1000));
          // Whenever the app is asked, the cursor file is at most at the last acknowledgement.
          const saved = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
          const last =
            acknowledged.length === 0 ? undefined : offsetOf(acknowledged[acknowledged.length - 1] as string);
          if (saved !== undefined) expect(offsets.indexOf(saved)).toBeLessThanOrEqual(offsets.indexOf(last ?? ''));
        },
      },
    );
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '8',
        '--cursor-file',
        file,
        '--forward-to',
        receiver.hook,
        '-q',
      ],
      { env: { ...env, SVCADM_FORWARD_SECRET: 'whsec-0123456789abcdef' }, clock },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(expected);
    expect(acknowledged).toEqual(expected);
    // Each attempt signed at its own second, whenever its request was made ready.
    expect(
      receiver.requests.map((q) => verify('whsec-0123456789abcdef', q.headers['svcadm-signature'], q.body)),
    ).toEqual(seconds);
    expect(new Set(seconds).size).toBeGreaterThan(1);
    // Each event's attempts come together, in stream order.
    const attempts = receiver.requests.map((q) => offsets.indexOf(String(q.headers['svcadm-offset'])));
    expect(attempts).toEqual([0, 1, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 7]);
    // Full-jitter backoff from 0.5 s (the random source gives 0.5: 250 ms, 500 ms, …), Retry-After as asked.
    expect(clock.sleeps.filter((ms) => ms !== 5)).toEqual([250, 500, 250, 3000, 250]);
    // Each attempt says its number.
    expect(receiver.requests.map((q) => q.headers['svcadm-attempt'])).toEqual([
      '1',
      '1',
      '2',
      '3',
      '1',
      '1',
      '2',
      '1',
      '2',
      '1',
      '2',
      '1',
      '1',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(`${offsets[7]}\n`);
  });

  it('gives up after --forward-attempts with exit 7 and the resume line before the event; the resumed run sends the rest once', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 6);
    const offsets = expected.map(offsetOf);
    const file = join(tempConfigDir(), 'cursor');
    const broken = await app((_a, _t, req) => (req.headers['svcadm-offset'] === offsets[2] ? 500 : 200));
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '6',
        '--cursor-file',
        file,
        '--forward-to',
        broken.hook,
        '--forward-secret',
        'a-secret-of-16-chars',
        '--forward-attempts',
        '3',
      ],
      { env },
    );
    expect(r.code).toBe(7);
    expect(r.stdout.trim().split('\n')).toEqual(expected.slice(0, 2));
    const [first, second, third] = expected.map((line) => JSON.parse(line) as { type: string; event: { id: string } });
    const event = `event ${third?.event.id} (${third?.type}, offset ${offsets[2]})`;
    const where = `${broken.url}/hooks/svcadm`;
    const width = Math.max(first?.type.length ?? 0, second?.type.length ?? 0);
    expect(r.stderr).toBe(
      [
        'svcadm: warning: --forward-secret leaks into shell history and the process list; prefer SVCADM_FORWARD_SECRET',
        `Forwarding events to ${broken.hook}`,
        `svcadm: ${event} not acknowledged by ${where} (500 Internal Server Error); retrying in 0.3s (attempt 2 of 3)`,
        `svcadm: ${event} not acknowledged by ${where} (500 Internal Server Error); retrying in 0.5s (attempt 3 of 3)`,
        'svcadm: stopped after 2 events: 2 forwarded',
        `  ${first?.type.padEnd(width)}  1 forwarded`,
        `  ${second?.type.padEnd(width)}  1 forwarded`,
        `resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from ${offsets[1]} --forward-to '${broken.hook}' --forward-attempts 3 --cursor-file ${file}`,
        `svcadm: ${where} did not acknowledge ${event}: 3 attempts failed: 500 Internal Server Error (retried, attempts ran out) — fix the app at --forward-to, then resume: the event is sent again (or set such events aside with --dead-letter <file>)`,
        '',
      ].join('\n'),
    );
    expect(broken.requests.filter((q) => q.headers['svcadm-offset'] === offsets[2])).toHaveLength(3);
    expect(readFileSync(file, 'utf8')).toBe(`${offsets[1]}\n`);
    const fixed = await app(() => 200);
    const resumed = await runCli(
      ['events', 'tail', '--max-events', '4', '--cursor-file', file, '--forward-to', fixed.hook, '-q'],
      { env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const delivered = [
      ...broken.requests.filter((q) => q.headers['svcadm-offset'] !== offsets[2]).map((q) => q.body),
      ...fixed.requests.map((q) => q.body),
    ];
    expect(delivered).toEqual(expected);
    expect(readFileSync(file, 'utf8')).toBe(`${offsets[5]}\n`);
  });

  it('tells each retry of an app that refuses the connection once, in its own words only', async () => {
    const e = await emulator();
    const env = envOf(e);
    const [first] = await plainTail(env, 1);
    const id = (JSON.parse(first as string) as { event: { id: string } }).event.id;
    const port = await refusedPort();
    const hook = `http://127.0.0.1:${port}/hook`;
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--forward-to',
        hook,
        '--forward-secret',
        'a-secret-of-16-chars',
        '--forward-attempts',
        '3',
        '-o',
        'table',
      ],
      { env },
    );
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    const refused = `connection refused by 127.0.0.1:${port}`;
    const payload = JSON.parse(first as string) as { type: string; offset: string };
    const event = `event ${id} (${payload.type}, offset ${payload.offset})`;
    const lines = r.stderr.split('\n');
    expect(lines[5]).toMatch(
      /^resume with: svcadm --domain \S+ -o table events tail --since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ --forward-to \S+ --forward-attempts 3$/,
    );
    expect(lines.slice(0, 5)).toEqual([
      'svcadm: warning: --forward-secret leaks into shell history and the process list; prefer SVCADM_FORWARD_SECRET',
      `Forwarding events to ${hook}`,
      `svcadm: ${event} not acknowledged by ${hook} (${refused}); retrying in 0.3s (attempt 2 of 3)`,
      `svcadm: ${event} not acknowledged by ${hook} (${refused}); retrying in 0.5s (attempt 3 of 3)`,
      'svcadm: stopped after 0 events: 0 forwarded',
    ]);
    expect(r.stderr).toContain(
      `svcadm: ${hook} did not acknowledge ${event}: 3 attempts failed: ${refused} (retried, attempts ran out) — `,
    );
  });

  it('stops cleanly on Ctrl-C while an event is being retried, the cursor at the last acknowledgement; the summary is one JSON line for data', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 3);
    const offsets = expected.map(offsetOf);
    const [t1, t2] = expected.map((line) => (JSON.parse(line) as { type: string }).type);
    const interrupt = new AbortController();
    const receiver = await app((attempt) => {
      if (attempt < 2) return 200;
      if (attempt === 3) interrupt.abort(new Interrupted('SIGINT'));
      return 500;
    });
    const r = await runCli(['events', 'tail', '--since', '7d', '--forward-to', receiver.hook, '-q', '-o', 'ndjson'], {
      env: { ...env, SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' },
      interrupt: interrupt.signal,
    });
    expect(r.code).toBe(130);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    const byType =
      t1 === t2
        ? { [t1 as string]: { forwarded: 2, dead_lettered: 0 } }
        : { [t1 as string]: { forwarded: 1, dead_lettered: 0 }, [t2 as string]: { forwarded: 1, dead_lettered: 0 } };
    expect(r.stderr.split('\n')).toEqual([
      JSON.stringify({
        summary: {
          events: 2,
          forwarded: 2,
          dead_lettered: 0,
          rejected: 0,
          out_of_attempts: 0,
          retrying: { attempt: 2, reason: '500 Internal Server Error' },
          by_type: byType,
          stopped: 'interrupted',
          resume: `svcadm --domain ${e.url} -o ndjson events tail --from ${offsets[1]} --forward-to '${receiver.hook}'`,
        },
      }),
      '',
    ]);
    expect(receiver.requests).toHaveLength(4);
  });

  it('stops at --duration after the event being delivered, with exit 0', async () => {
    const e = await emulator();
    const env = { ...envOf(e), SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' };
    const expected = await plainTail(env, 3);
    const clock = new VirtualClock();
    const receiver = await app((attempt) => {
      if (attempt === 2) clock.advance(9_000); // --duration runs out while the third event is with the app
      return 200;
    });
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--duration', '9s', '--forward-to', receiver.hook, '-q'],
      {
        env,
        clock,
      },
    );
    expect(r).toEqual({ code: 0, stdout: `${expected.join('\n')}\n`, stderr: '' });
    expect(receiver.requests).toHaveLength(3);
  });

  it('shows the status the app acknowledged with on each line of the table view', async () => {
    const e = await emulator();
    const receiver = await app((attempt) => (attempt === 0 ? 202 : 200));
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '3', '--forward-to', receiver.hook, '-o', 'table', '-q'],
      { env: envOf(e) },
    );
    expect(r.code).toBe(0);
    // Event lines, under the heading of their day.
    const lines = r.stdout
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('── '));
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => /^\d\d:\d\d:\d\d {2}\S+ +\S+ +\[(\d{3})\] {2}\S/.exec(l)?.[1])).toEqual([
      '202',
      '200',
      '200',
    ]);
  });

  it('shows the status of each delivery in the live view of a pseudo-terminal, retries above it', async () => {
    if (!existsSync('/usr/bin/script')) throw new Error('script is not installed: apt-get install -y bsdutils');
    const e = await emulator();
    const receiver = await app((attempt) => (attempt === 2 ? 503 : 200));
    const command = `stty rows 40 cols 160; exec ${process.execPath} ${BIN} events tail --since 7d --max-events 10 --forward-to ${receiver.url}/hook`;
    const output = await runInScriptTerminal(command, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TERM: 'xterm-256color',
      ...envOf(e),
    });
    expect(output.code).toBe(0);
    // The status line is redrawn in place (\r, erase line): every \r starts a line of the screen's history.
    const plain = output.text
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\r\n/g, '\n')
      .replace(/\r/g, '\n');
    expect(plain).toMatch(/● connected · 10 events · 10 forwarded · [\d.]+\/s · all types/);
    // The retry's own status ("retrying (attempt 2, next try in …)") is drawn only when its random wait outlasts the
    // view's redraw interval: test/render/tail-view.test.ts shows it.
    expect(plain).toMatch(/■ stopped: reached --max-events · 10 events · 10 forwarded · all types/);
    expect(plain).toMatch(/\nsvcadm: reached --max-events after 10 events: 10 forwarded\n/);
    expect(plain).toMatch(/Forwarding events to http:\/\/127\.0\.0\.1:\d+\/hook — signing secret whsec_/);
    expect(plain).toMatch(
      /svcadm: event evt_\w+ \([a-z.]+, offset \w+\) not acknowledged by http:\/\/127\.0\.0\.1:\d+\/hook \(503 Service Unavailable\); retrying in [\d.]+s \(attempt 2 of 10\)/,
    );
    const delivered = plain.split('\n').filter((l) => /^\d\d:\d\d:\d\d {2}[a-z.]+ +evt_\S+ +\[200\] {2}/.test(l));
    expect(delivered).toHaveLength(10);
    expect(receiver.requests).toHaveLength(11);
  });

  it.each([
    [
      ['--forward-to', 'ftp://127.0.0.1/x'],
      "invalid --forward-to 'ftp://127.0.0.1/x': only https:// (or http:// on loopback) is supported",
    ],
    [
      ['--forward-to', 'http://example.com/hook'],
      'refusing plain http to example.com: events would cross the network unencrypted — use https://, or http:// only for loopback hosts (127.0.0.1, ::1, localhost)',
    ],
    [
      ['--forward-to', 'https://u:p@example.com/hook'],
      '--forward-to must not carry a user name or password — check the svcadm-signature instead',
    ],
    [
      ['--forward-to', 'localhost:3000'],
      "invalid --forward-to 'localhost:3000': only https:// (or http:// on loopback) is supported",
    ],
    [
      ['--forward-to', 'not a url'],
      "invalid --forward-to 'not a url': expected a URL such as http://localhost:3000/webhooks",
    ],
    [['--forward-secret', 'a-secret-of-16-chars'], '--forward-secret needs --forward-to'],
    [
      ['--forward-to', 'http://[::1]:9/h', '--forward-secret', 'short'],
      '--forward-secret must be 16 to 1024 visible ASCII characters without spaces',
    ],
  ])('%j is exit 2, nothing sent', async (args, message) => {
    const e = await emulator();
    const r = await runCli(['events', 'tail', ...args], { env: envOf(e) });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
    const { counters } = await e.requests();
    expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
  });
});
