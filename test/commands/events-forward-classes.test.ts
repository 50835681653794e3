import { lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { loopbackPerTest, type Recorded } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const startEmulator = emulatorPerTest();
const hostile = hostileServerPerTest();
// Registered after the emulator's: the receivers are closed first.
const loopback = loopbackPerTest();

const SECRET = 'a-secret-of-16-chars';

function emulator(): Promise<TestEmulator> {
  return startEmulator({ events: 200, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
}

function envOf(e: TestEmulator): Record<string, string> {
  return emulatorEnv(e, { NO_COLOR: '1', SVCADM_FORWARD_SECRET: SECRET });
}

/** What the app does with one delivery attempt. */
type Reply = number | 'hang' | 'reset' | { status: number; headers?: Record<string, string> };

/** A loopback app: `reply` answers each attempt (given the event's offset and its tries before); all recorded. */
async function app(reply: (offset: string, tries: number, req: Recorded) => Reply, clock?: VirtualClock) {
  const tries = new Map<string, number>();
  const server = await loopback([
    (req, res: ServerResponse) => {
      const offset = String(req.headers['svcadm-offset']);
      const before = tries.get(offset) ?? 0;
      tries.set(offset, before + 1);
      const answer = reply(offset, before, req);
      if (answer === 'hang') {
        clock?.advance(2_000);
        return;
      }
      if (answer === 'reset') {
        res.socket?.destroy();
        return;
      }
      const { status, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, headers);
      res.end();
    },
  ]);
  return { ...server, hook: `${server.url}/hook` };
}

interface Payload {
  type: string;
  offset: string;
  event: { id: string };
}

/** The NDJSON a plain tail prints for the first `count` events: what forwarding must deliver, in this order. */
async function plainTail(env: Record<string, string>, count: number): Promise<string[]> {
  const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', String(count)], { env });
  expect(r.code).toBe(0);
  return r.stdout.trim().split('\n');
}

const parse = (line: string) => JSON.parse(line) as Payload;
const named = (p: Payload) => `event ${p.event.id} (${p.type}, offset ${p.offset})`;

/** A dead-letter line as the contract says, `at` left out (it is the clock's). */
function deadLetters(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const value = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(value)).toEqual(['event', 'offset', 'status', 'attempts', 'error', 'at']);
      expect(value.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const { at: _at, ...rest } = value;
      return rest;
    });
}

describe('forwarding: delivery classes', () => {
  it('stops before an event the app rejects (400): exit 8, one line naming it, its status and class, the resume line before it; never retried', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 4);
    const poison = parse(expected[2] as string);
    const receiver = await app((offset) => (offset === poison.offset ? 400 : 204));
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '4', '--forward-to', receiver.hook], {
      env,
    });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe(`${expected.slice(0, 2).join('\n')}\n`);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(`Forwarding events to ${receiver.hook}`);
    expect(lines.at(-2)).toBe(
      `resume with: svcadm --domain ${e.url} events tail --from ${parse(expected[1] as string).offset} --forward-to ${receiver.hook}`,
    );
    expect(lines.at(-1)).toBe(
      `svcadm: ${receiver.hook} rejected ${named(poison)}: 400 Bad Request (rejected, not retried) — fix the app at --forward-to, then resume: the event is sent again (or set such events aside with --dead-letter <file>)`,
    );
    expect(receiver.requests.filter((q) => q.headers['svcadm-offset'] === poison.offset)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(3);
  });

  it('sets a rejected event aside in --dead-letter (0600, one whole line) and goes on; the cursor file moves past it', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 5);
    const poison = parse(expected[1] as string);
    const dir = tempConfigDir();
    const dead = join(dir, 'dead.ndjson');
    const cursor = join(dir, 'cursor');
    const receiver = await app((offset) => (offset === poison.offset ? 422 : 200));
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '5',
        '--forward-to',
        receiver.hook,
        '--dead-letter',
        dead,
        '--cursor-file',
        cursor,
        '-q',
      ],
      { env },
    );
    expect(r).toEqual({ code: 0, stdout: `${expected.filter((_, i) => i !== 1).join('\n')}\n`, stderr: '' });
    expect(lstatSync(dead).mode & 0o777).toBe(0o600);
    expect(deadLetters(dead)).toEqual([
      {
        event: JSON.parse(expected[1] as string),
        offset: poison.offset,
        status: 422,
        attempts: 1,
        error: 'rejected: 422 Unprocessable Entity',
      },
    ]);
    expect(readFileSync(cursor, 'utf8')).toBe(`${parse(expected[4] as string).offset}\n`);
    expect(receiver.requests.map((q) => q.body)).toEqual(expected);
  });

  it.each([
    [408, 'retried'],
    [425, 'retried'],
    [429, 'retried'],
    [500, 'retried'],
    [503, 'retried'],
    [301, 'rejected'],
    [400, 'rejected'],
    [401, 'rejected'],
    [403, 'rejected'],
    [404, 'rejected'],
    [409, 'rejected'],
    [410, 'rejected'],
    [413, 'rejected'],
  ] as const)('an answer %i is %s', async (status, klass) => {
    const e = await emulator();
    const env = envOf(e);
    const dead = join(tempConfigDir(), 'dead.ndjson');
    const receiver = await app((_offset, tries) => (tries < 2 ? status : 204));
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--forward-to',
        receiver.hook,
        '--dead-letter',
        dead,
        '--debug',
        '-q',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const traced = r.stderr.split('\n').filter((l) => l.startsWith('svcadm: debug: forward: '));
    if (klass === 'retried') {
      expect(receiver.requests).toHaveLength(3);
      expect(traced.map((l) => l.replace(/^.* → /, ''))).toEqual([
        expect.stringMatching(new RegExp(`^${status} .*: retried in 250 ms$`)),
        expect.stringMatching(new RegExp(`^${status} .*: retried in 500 ms$`)),
        '204 No Content: acknowledged',
      ]);
      expect(readFileSync(dead, 'utf8')).toBe('');
    } else {
      expect(receiver.requests).toHaveLength(1);
      expect(traced.map((l) => l.replace(/^.* → /, ''))).toEqual([
        expect.stringMatching(new RegExp(`^${status} .*: rejected, not retried$`)),
      ]);
      const [letter] = deadLetters(dead);
      expect(letter?.status).toBe(status);
      expect(letter?.error).toMatch(
        new RegExp(`^rejected: ${status} [A-Za-z ]+${status === 413 ? " \\(over the app's limit\\)" : ''}$`),
      );
    }
  });

  it('gives an event that runs out of --forward-attempts to the dead letters, with its attempts and last status', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 3);
    const poison = parse(expected[0] as string);
    const dead = join(tempConfigDir(), 'dead.ndjson');
    const clock = new VirtualClock();
    const receiver = await app((offset) => (offset === poison.offset ? 503 : 200));
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '3',
        '--forward-to',
        receiver.hook,
        '--forward-attempts',
        '4',
        '--dead-letter',
        dead,
        '-o',
        'table',
      ],
      { env, clock },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(deadLetters(dead)).toEqual([
      {
        event: JSON.parse(expected[0] as string),
        offset: poison.offset,
        status: 503,
        attempts: 4,
        error: '4 attempts failed: 503 Service Unavailable',
      },
    ]);
    expect(clock.sleeps.filter((ms) => ms !== 5)).toEqual([250, 500, 1000]);
    const types = expected.map((l) => parse(l).type);
    const width = Math.max(...types.map((t) => t.length));
    expect(new Set(types).size).toBe(3);
    expect(r.stderr.trim().split('\n').slice(-4)).toEqual([
      `svcadm: reached --max-events after 3 events: 2 forwarded, 1 dead-lettered to ${dead} (1 out of attempts)`,
      `  ${types[0]?.padEnd(width)}  0 forwarded, 1 dead-lettered`,
      `  ${types[1]?.padEnd(width)}  1 forwarded`,
      `  ${types[2]?.padEnd(width)}  1 forwarded`,
    ]);
  });

  it('honours Retry-After up to 30 s, caps the backoff at 30 s, and never gives up with --forward-attempts 0', async () => {
    const e = await emulator();
    const env = envOf(e);
    const clock = new VirtualClock();
    const receiver = await app((_offset, tries) => {
      if (tries === 0) return { status: 429, headers: { 'retry-after': '120' } };
      if (tries === 1) return { status: 503, headers: { 'retry-after': '7' } };
      return tries < 12 ? 500 : 200;
    });
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--forward-to',
        receiver.hook,
        '--forward-attempts',
        '0',
      ],
      { env, clock },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests).toHaveLength(13);
    expect(receiver.requests.map((q) => q.headers['svcadm-attempt'])).toEqual(
      Array.from({ length: 13 }, (_, i) => String(i + 1)),
    );
    // 0.5 of each ceiling (the random source gives 0.5): 0.5 s doubling, capped at 30 s.
    expect(clock.sleeps.filter((ms) => ms !== 5)).toEqual([
      30_000, 7_000, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000,
    ]);
    expect(r.stderr).toContain('retrying in 30.0s (attempt 2)\n');
  });

  it('retries an app that does not answer within --forward-timeout, then one that resets the connection', async () => {
    const e = await emulator();
    const env = envOf(e);
    const [line] = await plainTail(env, 1);
    const clock = new VirtualClock();
    const receiver = await app((_offset, tries) => (tries === 0 ? 'hang' : tries === 1 ? 'reset' : 200), clock);
    const r = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--forward-to',
        receiver.hook,
        '--forward-timeout',
        '2s',
      ],
      { env, clock },
    );
    expect(r.code, r.stderr).toBe(0);
    const host = new URL(receiver.url).host;
    const event = named(parse(line as string));
    expect(r.stderr.split('\n').slice(1, 3)).toEqual([
      `svcadm: ${event} not acknowledged by ${receiver.hook} (no answer from ${host} within 2s); retrying in 0.3s (attempt 2 of 10)`,
      `svcadm: ${event} not acknowledged by ${receiver.hook} (connection to ${host} was reset); retrying in 0.5s (attempt 3 of 10)`,
    ]);
    expect(receiver.requests).toHaveLength(3);
  });

  it('waits for an app that goes away and comes back on the same port: nothing lost or repeated', async () => {
    const e = await emulator();
    const env = envOf(e);
    const expected = await plainTail(env, 3);
    const received: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString());
        res.writeHead(204).end();
        // Gone after the first event: every connection closed, nothing listening.
        if (received.length === 1) {
          server.closeAllConnections();
          server.close();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let refusals = 0;
    // Back after two refused attempts: listening again when the second retry's wait starts.
    const clock = new (class extends VirtualClock {
      override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
        if (ms !== 5 && ++refusals === 2)
          await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
        return super.sleep(ms, signal);
      }
    })();
    try {
      const r = await runCli(
        ['events', 'tail', '--since', '7d', '--max-events', '3', '--forward-to', `http://127.0.0.1:${port}/hook`, '-q'],
        { env, clock },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(received).toEqual(expected);
      expect(r.stdout.trim().split('\n')).toEqual(expected);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('forwards an event over 1 MB (the app has the stream’s 4 MB bound); an app that refuses it with 413 gets it set aside as over its limit', async () => {
    const blob = 'x'.repeat(2 * 1024 * 1024);
    const big = `{"event":{"id":"evt_big","blob":"${blob}"}}`;
    const server = await hostile({
      api: sse(
        [
          ':connected\n\n',
          sseMessage('o1', 'user.created', big),
          sseMessage('o2', 'user.deleted', '{"event":{"id":"evt_small"}}'),
        ],
        { keepOpen: true },
      ),
    });
    const takes = await app(() => 204);
    const r = await runCli(['events', 'tail', '--max-events', '2', '--forward-to', takes.hook, '-q'], {
      env: server.env({ SVCADM_FORWARD_SECRET: SECRET }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(takes.requests.map((q) => q.body.length)).toEqual([big.length + '"type":"user.created",'.length, 50]);
    const dead = join(tempConfigDir(), 'dead.ndjson');
    const refuses = await app((_o, _t, req) => (req.body.length > 1024 * 1024 ? 413 : 204));
    const again = await runCli(
      ['events', 'tail', '--max-events', '2', '--forward-to', refuses.hook, '--dead-letter', dead, '-q'],
      { env: server.env({ SVCADM_FORWARD_SECRET: SECRET }) },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('{"type":"user.deleted","event":{"id":"evt_small"}}\n');
    const [letter] = deadLetters(dead);
    expect({ ...letter, event: undefined }).toEqual({
      event: undefined,
      offset: 'o1',
      status: 413,
      attempts: 1,
      error: "rejected: 413 Payload Too Large (over the app's limit)",
    });
  });

  it.each([
    [['--dead-letter', 'x.ndjson'], '--dead-letter needs --forward-to'],
    [['--forward-attempts', '3'], '--forward-attempts needs --forward-to'],
    [['--forward-timeout', '3s'], '--forward-timeout needs --forward-to'],
    [
      ['--forward-to', 'http://127.0.0.1:9/h', '--forward-attempts', '-1'],
      "--forward-attempts must be a whole number of at least 0, got '-1'",
    ],
    [['--forward-to', 'http://127.0.0.1:9/h', '--forward-timeout', '0s'], '--forward-timeout must be more than 0'],
  ])('%j is exit 2, nothing sent', async (args, message) => {
    const e = await emulator();
    const r = await runCli(['events', 'tail', ...args], { env: envOf(e) });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
    const { counters } = await e.requests();
    expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
  });

  it('refuses a dead-letter file that is a symbolic link: exit 2, nothing sent', async () => {
    const e = await emulator();
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'target'), '');
    symlinkSync(join(dir, 'target'), join(dir, 'dead.ndjson'));
    const receiver = await app(() => 204);
    const r = await runCli(
      ['events', 'tail', '--forward-to', receiver.hook, '--dead-letter', join(dir, 'dead.ndjson')],
      { env: envOf(e) },
    );
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to write the dead-letter file ${join(dir, 'dead.ndjson')}: it is a symbolic link\n`,
    });
    expect(receiver.requests).toHaveLength(0);
    const { counters } = await e.requests();
    expect(counters.interfaceRequests).toBe(0);
  });
});
