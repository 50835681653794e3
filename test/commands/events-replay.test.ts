import { readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { loopbackPerTest, type Recorded } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const startEmulator = emulatorPerTest();
// Registered after the emulator's: the receivers are closed first.
const loopback = loopbackPerTest();

const SECRET = 'a-secret-of-16-chars';
/** A replay needs no tenant: only the forwarding secret (and no colour). */
const ENV = { NO_COLOR: '1', SVCADM_FORWARD_SECRET: SECRET };

function emulator(): Promise<TestEmulator> {
  return startEmulator({ events: 200, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
}

interface Payload {
  type: string;
  offset: string;
  event: { id: string };
}

const parse = (line: string) => JSON.parse(line) as Payload;

/** A loopback app: `reply` answers each attempt; every attempt recorded. */
async function app(reply: (req: Recorded) => number = () => 204, onRequest?: (req: Recorded) => void) {
  const server = await loopback([
    (req, res: ServerResponse) => {
      onRequest?.(req);
      res.writeHead(reply(req)).end();
    },
  ]);
  return { ...server, hook: `${server.url}/hook` };
}

/** `count` events recorded by a tail with --output-file: the file and its lines. */
async function recorded(e: TestEmulator, count: number): Promise<{ file: string; lines: string[] }> {
  const file = join(tempConfigDir(), 'events.ndjson');
  const r = await runCli(
    ['events', 'tail', '--since', '7d', '--max-events', String(count), '--output-file', file, '-q'],
    { env: emulatorEnv(e, ENV) },
  );
  expect(r.code, r.stderr).toBe(0);
  return { file, lines: readFileSync(file, 'utf8').trim().split('\n') };
}

describe('events replay', () => {
  it('sends a recorded file to the app in file order, with the same headers as the tail, and prints what was acknowledged', async () => {
    const e = await emulator();
    const { file, lines } = await recorded(e, 6);
    const receiver = await app();
    const r = await runCli(['events', 'replay', file, '--forward-to', receiver.hook, '-o', 'ndjson'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${lines.join('\n')}\n`);
    expect(receiver.requests.map((q) => q.body)).toEqual(lines);
    for (const [i, q] of receiver.requests.entries()) {
      const payload = parse(lines[i] as string);
      expect(q.headers['idempotency-key']).toBe(payload.event.id);
      expect(q.headers['svcadm-event-type']).toBe(payload.type);
      expect(q.headers['svcadm-offset']).toBe(payload.offset);
      expect(q.headers['svcadm-attempt']).toBe('1');
      expect(q.headers['svcadm-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    const summary = JSON.parse(r.stderr.trim().split('\n').at(-1) as string) as { summary: Record<string, unknown> };
    expect(summary.summary).toMatchObject({ events: 6, forwarded: 6, dead_lettered: 0, stopped: 'finished' });
    expect(summary.summary.resume).toBeUndefined();
  });

  it('without --forward-to prints the events again, through --type, and reads nothing from a tenant', async () => {
    const e = await emulator();
    const { file, lines } = await recorded(e, 12);
    const type = parse(lines[0] as string).type;
    const r = await runCli(['events', 'replay', file, '--type', type], { env: ENV });
    expect(r).toEqual({
      code: 0,
      stdout: `${lines.filter((l) => parse(l).type === type).join('\n')}\n`,
      stderr: '',
    });
  });

  it('reports a malformed line with its number and skips it; --strict stops there with the line to resume with', async () => {
    const e = await emulator();
    const { lines } = await recorded(e, 3);
    const file = join(tempConfigDir(), 'mixed.ndjson');
    writeFileSync(
      file,
      `${lines[0]}\nnot json\n\n[1,2]\n{"no":"type"}\n${lines[1]}\n${'x'.repeat(5 * 1024 * 1024)}\n${lines[2]}`,
    );
    const receiver = await app();
    const r = await runCli(['events', 'replay', file, '--forward-to', receiver.hook], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests.map((q) => q.body)).toEqual(lines);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('svcadm: skipped'))).toEqual([
      `svcadm: skipped line 2 of ${file}: not JSON (Unexpected token 'o', "not json" is not valid JSON)`,
      `svcadm: skipped line 4 of ${file}: not a JSON object`,
      `svcadm: skipped line 5 of ${file}: no "type": not an event`,
      `svcadm: skipped line 7 of ${file}: longer than 4259840 bytes`,
    ]);
    expect(r.stderr).toContain('svcadm: finished (4 malformed lines skipped) after 3 events: 3 forwarded\n');

    const strict = await app();
    const s = await runCli(['events', 'replay', file, '--forward-to', strict.hook, '--strict'], { env: ENV });
    expect(s.code).toBe(2);
    expect(strict.requests.map((q) => q.body)).toEqual([lines[0]]);
    expect(s.stderr.split('\n').slice(-4)).toEqual([
      `  ${parse(lines[0] as string).type}  1 forwarded`,
      `resume with: svcadm events replay ${file} --from-line 2 --strict --forward-to ${strict.hook}`,
      `svcadm: line 2 of ${file} is not an event: not JSON (Unexpected token 'o', "not json" is not valid JSON)`,
      '',
    ]);
  });

  it('sends lines as recorded whatever the reads cut: across 64 KB reads, longer than a read, CR LF, a last line without its break', async () => {
    // Lines as svcadm writes them (sent byte for byte: `1.0` and `\u0041` stay as the tail sent them), others that
    // are parsed (written again), lengths that put line breaks on and around every 64 KB boundary.
    const event = (n: number, pad: number) =>
      `{"type":"user.created","offset":"o${n}","event":{"id":"evt_${n}","n":1.0,"s":"\\u0041${'x'.repeat(pad)}"}}`;
    const lines: string[] = [];
    for (let n = 0; lines.join('\n').length < 300 * 1024; n++) lines.push(event(n, (n * 977) % 3000));
    lines.push(event(1000, 200 * 1024), event(1001, 70 * 1024));
    const parsedLine = '{"type":"user.deleted", "offset":"p1","event":{"id":"evt_p","n":1.0}}';
    const file = join(tempConfigDir(), 'long.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n${parsedLine}\r\n${event(2000, 10)}`);
    const receiver = await app();
    const r = await runCli(['events', 'replay', file, '--forward-to', receiver.hook, '-q'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const bodies = receiver.requests.map((q) => q.body);
    expect(bodies).toEqual([
      ...lines,
      '{"type":"user.deleted","offset":"p1","event":{"id":"evt_p","n":1}}',
      event(2000, 10),
    ]);
    expect(receiver.requests.map((q) => q.headers['svcadm-offset'])).toEqual([
      ...lines.map((l) => parse(l).offset),
      'p1',
      'o2000',
    ]);
    expect(receiver.requests.at(-2)?.headers['idempotency-key']).toBe('evt_p');

    // --from-line past a line longer than a read: nothing of it is sent.
    const from = await app();
    const at = lines.length - 1;
    const f = await runCli(['events', 'replay', file, '--forward-to', from.hook, '-q', '--from-line', String(at + 1)], {
      env: ENV,
    });
    expect(f.code, f.stderr).toBe(0);
    expect(from.requests.map((q) => parse(q.body).offset)).toEqual(['o1001', 'p1', 'o2000']);
  });

  it('resumes with --from-line, and a stop (Ctrl-C) says the line to resume with: nothing sent twice, nothing missed', async () => {
    const e = await emulator();
    const { file, lines } = await recorded(e, 8);
    const interrupt = new AbortController();
    const first = await app(
      () => 204,
      () => {
        // Ctrl-C while the fourth event is with the app: three were acknowledged.
        if (first.requests.length === 4) interrupt.abort(new Interrupted('SIGINT'));
      },
    );
    const r = await runCli(['events', 'replay', file, '--forward-to', first.hook, '-o', 'table', '-q'], {
      env: ENV,
      interrupt: interrupt.signal,
    });
    expect(r.code).toBe(130);
    // Told once: the summary, then the resume line.
    expect(r.stderr.split('\n')[0]).toBe('svcadm: interrupted after 3 events: 3 forwarded');
    expect(r.stderr.match(/interrupted/g)).toHaveLength(1);
    expect(r.stderr.endsWith('\n') && r.stderr.split('\n').at(-2)?.startsWith('resume with: ')).toBe(true);
    const resume = /^resume with: (.*)$/m.exec(r.stderr)?.[1];
    expect(resume).toBe(`svcadm -o table events replay ${file} --from-line 4 --forward-to ${first.hook}`);
    const second = await app();
    const again = await runCli(['events', 'replay', file, '--from-line', '4', '--forward-to', second.hook, '-q'], {
      env: ENV,
    });
    expect(again.code, again.stderr).toBe(0);
    // The event that was with the app is sent again (at least once); the three acknowledged are not.
    expect(first.requests).toHaveLength(4);
    expect([...first.requests.slice(0, 3), ...second.requests].map((q) => q.body)).toEqual(lines);
  });

  it('replays dead letters: the events inside are sent', async () => {
    const e = await emulator();
    const { lines } = await recorded(e, 2);
    const file = join(tempConfigDir(), 'dead.ndjson');
    writeFileSync(
      file,
      lines
        .map((l) => {
          const { offset } = parse(l);
          return `{"event":${l},"offset":"${offset}","status":400,"attempts":1,"error":"rejected: 400 Bad Request","at":"2026-11-25T23:00:00.000Z"}\n`;
        })
        .join(''),
    );
    const receiver = await app();
    const r = await runCli(['events', 'replay', file, '--forward-to', receiver.hook, '-q'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests.map((q) => q.body)).toEqual(lines);
  });

  it('shows its progress on a terminal, and leaves no trace of it', async () => {
    const e = await emulator();
    const { file, lines } = await recorded(e, 5);
    const r = await runCli(['events', 'replay', file, '-o', 'ndjson'], {
      env: { ...ENV, TERM: 'xterm-256color' },
      tty: { stderr: true },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${lines.join('\n')}\n`);
    expect(r.stderr).toBe(`\r\x1b[2Kreplaying ${file}: 100% · 5 events\r\x1b[2K`);
  });

  it.each([
    [['events', 'replay', '/nonexistent/events.ndjson'], 'cannot read /nonexistent/events.ndjson: no such file'],
    [['events', 'replay', '/tmp', '--from-line', '0'], '--from-line must be at least 1, got 0'],
    [
      ['events', 'replay', '/tmp', '--type', 'user.creatd'],
      "unknown event type 'user.creatd' (did you mean user.created?) — run 'svcadm events tail --help' for the 25 event types",
    ],
  ])('%j is exit 2', async (argv, message) => {
    const r = await runCli(argv, { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`svcadm: ${message}`);
  });
});

describe('poison events: dead letters, the app fixed, the dead letters replayed', () => {
  it('every event reaches the app in order and is acknowledged exactly once, counted by Idempotency-Key', async () => {
    const e = await emulator();
    const env = emulatorEnv(e, ENV);
    const tail = await runCli(['events', 'tail', '--since', '7d', '--max-events', '20'], { env });
    const expected = tail.stdout.trim().split('\n').map(parse);
    const poison = new Set([expected[2], expected[9], expected[15]].map((p) => p?.event.id));
    /** Acknowledgements per Idempotency-Key, in the order they were given: the app's own de-duplication. */
    const acknowledged = new Map<string, number>();
    const order: string[] = [];
    let fixed = false;
    const receiver = await app((req) => {
      const key = String(req.headers['idempotency-key']);
      const payload = JSON.parse(req.body) as Payload;
      if (!fixed && poison.has(payload.event.id)) return 400;
      acknowledged.set(key, (acknowledged.get(key) ?? 0) + 1);
      order.push(key);
      return 204;
    });
    const dead = join(tempConfigDir(), 'dead.ndjson');
    const cursor = join(tempConfigDir(), 'cursor');
    const first = await runCli(
      [
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '20',
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
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(dead, 'utf8').trim().split('\n')).toHaveLength(3);
    fixed = true;
    const replay = await runCli(['events', 'replay', dead, '--forward-to', receiver.hook, '-q'], { env: ENV });
    expect(replay.code, replay.stderr).toBe(0);
    const ids = expected.map((p) => p.event.id);
    expect([...acknowledged.keys()].sort()).toEqual([...ids].sort());
    expect([...acknowledged.values()].every((n) => n === 1)).toBe(true);
    // In order: the stream's order without the poison, then the poison in its own order.
    expect(order).toEqual([...ids.filter((id) => !poison.has(id)), ...ids.filter((id) => poison.has(id))]);
    expect(readFileSync(cursor, 'utf8')).toBe(`${expected[19]?.offset}\n`);
  });
});
