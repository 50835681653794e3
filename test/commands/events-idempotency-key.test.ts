import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { loopbackPerTest, type Recorded } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 37, C6: every forwarded POST has an Idempotency-Key, by one rule: the id when it is 1–255 visible ASCII
// characters, else sha256:<hex of the id's UTF-8 bytes>; without an id, sha256:<hex of the payload as sent>.

const hostile = hostileServerPerTest();
const loopback = loopbackPerTest();
const ENV = { NO_COLOR: '1', SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' };

const sha256 = (bytes: string) => `sha256:${createHash('sha256').update(bytes, 'utf8').digest('hex')}`;

/** The events of the stream: each one's data as the service sends it, and the line svcadm prints and POSTs. */
const EVENTS: Array<{ what: string; data: string; key: (body: string) => string }> = [
  { what: 'a plain id', data: '{"offset":"o1","event":{"id":"evt_1"}}', key: () => 'evt_1' },
  {
    what: 'an id of 255 characters',
    data: `{"offset":"o2","event":{"id":"${'b'.repeat(255)}"}}`,
    key: () => 'b'.repeat(255),
  },
  {
    what: 'an id of 256 characters',
    data: `{"offset":"o3","event":{"id":"${'c'.repeat(256)}"}}`,
    key: () => sha256('c'.repeat(256)),
  },
  { what: 'an id with a space', data: '{"offset":"o4","event":{"id":"evt 4"}}', key: () => sha256('evt 4') },
  { what: 'a non-ASCII id', data: '{"offset":"o5","event":{"id":"évt_5"}}', key: () => sha256('évt_5') },
  {
    what: 'an id with a control',
    data: '{"offset":"o6","event":{"id":"evt\\u00076"}}',
    key: () => sha256('evt\u00076'),
  },
  { what: 'an empty id', data: '{"offset":"o7","event":{"id":""}}', key: (body) => sha256(body) },
  { what: 'no id', data: '{"offset":"o8","event":{"name":"x"}}', key: (body) => sha256(body) },
  { what: 'a number for an id', data: '{"offset":"o9","event":{"id":42}}', key: (body) => sha256(body) },
];

const lineOf = (data: string) => data.replace('{', '{"type":"user.created",');

/** A loopback app: `reply` answers each POST (by its number, from 1); every POST recorded. */
async function app(reply: (n: number, req: Recorded) => number = () => 204) {
  let n = 0;
  const server = await loopback([(req, res: ServerResponse) => res.writeHead(reply(++n, req)).end()]);
  return { ...server, hook: `${server.url}/hook` };
}

async function stream(events: readonly string[]) {
  const server = await hostile({
    api: sse(
      events.map((data, k) => sseMessage(`o${k + 1}`, 'user.created', data)),
      { keepOpen: true },
    ),
  });
  return server.env({ SVCADM_TOKEN: 'a-token', ...ENV });
}

const keysOf = (requests: readonly Recorded[]) => requests.map((q) => q.headers['idempotency-key']);

describe('the Idempotency-Key of every forwarded event', () => {
  it('is the id, or the SHA-256 of the id, or of the payload: one notice names the first derived key', async () => {
    const env = await stream(EVENTS.map((e) => e.data));
    const receiver = await app();
    const r = await runCli(
      ['events', 'tail', '--max-events', String(EVENTS.length), '--forward-to', receiver.hook, '-o', 'ndjson'],
      { env, clock: new VirtualClock() },
    );
    expect(r.code, r.stderr).toBe(0);
    const bodies = EVENTS.map((e) => lineOf(e.data));
    expect(receiver.requests.map((q) => q.body)).toEqual(bodies);
    expect(keysOf(receiver.requests)).toEqual(EVENTS.map((e, k) => e.key(bodies[k] as string)));
    expect(r.stderr.split('\n').filter((l) => l.includes('Idempotency-Key'))).toEqual([
      `svcadm: event ${'c'.repeat(64)} (user.created, offset o3) has an id that is not 1–255 visible ASCII characters: its Idempotency-Key is ${sha256('c'.repeat(256))}, the SHA-256 of the id (so for every such event; an event without an id: the SHA-256 of its payload)`,
    ]);
  });

  it('an event without an id, first: the notice names the payload rule', async () => {
    const env = await stream(['{"offset":"o1","event":{}}', '{"offset":"o2","event":{"id":"evt 2"}}']);
    const receiver = await app();
    const r = await runCli(['events', 'tail', '--max-events', '2', '--forward-to', receiver.hook], {
      env,
      clock: new VirtualClock(),
    });
    expect(r.code, r.stderr).toBe(0);
    const body = '{"type":"user.created","offset":"o1","event":{}}';
    expect(keysOf(receiver.requests)).toEqual([sha256(body), sha256('evt 2')]);
    expect(r.stderr.split('\n').filter((l) => l.includes('Idempotency-Key'))).toEqual([
      `svcadm: event without an id (user.created, offset o1): its Idempotency-Key is ${sha256(body)}, the SHA-256 of its payload (so for every event without an id; an id that is not 1–255 visible ASCII characters: the SHA-256 of the id)`,
    ]);
  });

  it('the same key on a retry, and on a replay of the dead letter, which keeps the event as it was', async () => {
    // The service's number `1.0` stays as it came: the payload hashed on the replay is the one hashed first.
    const data = ['{"offset":"o1","event":{"id":"évt 1"}}', '{"offset":"o2","event":{"n":1.0,"s":"\\u0041"}}'];
    const lines = data.map(lineOf);
    const keys = [sha256('évt 1'), sha256(lines[1] as string)];
    const env = await stream(data);
    const deadLetter = join(tempConfigDir(), 'dead.ndjson');
    // Each event: a 503 first (retried), then a 422 (rejected: dead-lettered).
    const receiver = await app((n) => (n % 2 === 1 ? 503 : 422));
    const r = await runCli(
      ['events', 'tail', '--max-events', '2', '--forward-to', receiver.hook, '--dead-letter', deadLetter, '-q'],
      { env, clock: new VirtualClock() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(receiver.requests.map((q) => [q.headers['svcadm-attempt'], q.body])).toEqual([
      ['1', lines[0]],
      ['2', lines[0]],
      ['1', lines[1]],
      ['2', lines[1]],
    ]);
    expect(keysOf(receiver.requests)).toEqual([keys[0], keys[0], keys[1], keys[1]]);
    const dead = readFileSync(deadLetter, 'utf8').trim().split('\n');
    // The event inside each dead letter byte for byte as it was POSTed: no key of svcadm's added.
    expect(dead.map((l) => l.replace(/,"at":"[^"]+"}$/, ''))).toEqual(
      lines.map(
        (l, k) =>
          `{"event":${l},"offset":"o${k + 1}","status":422,"attempts":2,"error":"rejected: 422 Unprocessable Entity"`,
      ),
    );

    const again = await app();
    const replay = await runCli(['events', 'replay', deadLetter, '--forward-to', again.hook, '-q'], { env: ENV });
    expect(replay.code, replay.stderr).toBe(0);
    expect(again.requests.map((q) => q.body)).toEqual(lines);
    expect(keysOf(again.requests)).toEqual(keys);
  });
});

describe('a replayed dead letter', () => {
  it('sends its event as it stands only when it is the event JSON.parse reads (not one of two `event` keys)', async () => {
    const a = '{"type":"user.created","offset":"o1","event":{"id":"A","n":1.0}}';
    const b = '{"type":"user.deleted","offset":"o2","event":{"id":"B","n":2.0}}';
    const file = join(tempConfigDir(), 'dead.ndjson');
    const tail = '"offset":"o1","status":422,"attempts":1,"error":"x","at":"2026-11-28T10:00:00.000Z"}';
    writeFileSync(file, `{"event":${a},${tail}\n{"event":${a},"event":${b},${tail}\n`);
    const r = await runCli(['events', 'replay', file, '-o', 'ndjson'], { env: ENV });
    // JSON.parse keeps the last of two keys: the second line is B, written again from the parse.
    expect(r).toEqual({
      code: 0,
      stdout: `${a}\n{"type":"user.deleted","offset":"o2","event":{"id":"B","n":2}}\n`,
      stderr: '',
    });
  });
});

describe("the README's receiver", () => {
  const closeAfterTest = closeAfterEach();

  /**
   * The receiver of the README's "Headers and signature", run as it is but on a free port; `stop()` ends it and
   * gives every line it printed.
   */
  async function readmeReceiver(): Promise<{ url: string; stop(): Promise<string[]> }> {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const code = /```js\n(import http from 'node:http';[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(code).toContain('.listen(3000);');
    expect(code).toContain("from 'standardwebhooks';");
    const file = join(tempConfigDir(), 'receiver.mjs');
    const listen = ".listen(0, '127.0.0.1', function () { console.log('port ' + this.address().port); });";
    // Its library (a dev dependency) from this checkout: the file runs from a folder of its own.
    const library = pathToFileURL(createRequire(import.meta.url).resolve('standardwebhooks')).href;
    writeFileSync(
      file,
      code.replace('.listen(3000);', listen).replace("from 'standardwebhooks';", `from '${library}';`),
    );
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    closeAfterTest({ close: () => void child.kill() });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
    });
    const ended = new Promise<void>((resolve) => child.stdout.on('end', resolve));
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const at = /^port (\d+)$/m.exec(output);
        if (at) resolve(at[1] as string);
      });
      child.on('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
    return {
      url: `http://127.0.0.1:${port}/webhooks`,
      stop: async () => {
        child.kill();
        await ended;
        return output.split('\n').filter((line) => line !== '' && !line.startsWith('port '));
      },
    };
  }

  it('handles every event once, those without a usable id included', async () => {
    const receiver = await readmeReceiver();
    const data = [
      '{"offset":"o1","event":{"id":"evt_1"}}',
      '{"offset":"o2","event":{"id":"evt 2"}}',
      '{"offset":"o3","event":{"id":"évt_3"}}',
      '{"offset":"o4"}',
    ];
    const env = await stream(data);
    const file = join(tempConfigDir(), 'events.ndjson');
    const args = ['--forward-to', receiver.url, '-q'];
    const r = await runCli(['events', 'tail', '--max-events', '4', '--output-file', file, ...args], { env });
    expect(r.code, r.stderr).toBe(0);
    // The same events again: each one seen before, acknowledged and not handled twice.
    const again = await runCli(['events', 'replay', file, ...args], { env: ENV });
    expect(again.code, again.stderr).toBe(0);
    expect(await receiver.stop()).toEqual([
      'user.created evt_1 attempt 1',
      `user.created ${sha256('evt 2')} attempt 1`,
      `user.created ${sha256('évt_3')} attempt 1`,
      `user.created ${sha256(lineOf(data[3] as string))} attempt 1`,
    ]);
  });
});
