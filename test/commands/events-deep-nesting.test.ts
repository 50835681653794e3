import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { loopbackPerTest } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 37, C5: a line (or an event) nested thousands of levels deep is malformed like any other, never a crash.

const hostile = hostileServerPerTest();
const loopback = loopbackPerTest();
const ENV = { NO_COLOR: '1', SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' };

/** A JSON value nested `levels` deep: objects and arrays in turn (`{"a":[{"a":[…]}]}`), about 5 bytes a level. */
function deep(levels: number): string {
  let open = '';
  let close = '';
  for (let k = 0; k < levels; k++) {
    open += k % 2 === 0 ? '{"a":' : '[';
    close = (k % 2 === 0 ? '}' : ']') + close;
  }
  return `${open}1${close}`;
}

const FIRST = '{"type":"user.created","offset":"o1","event":{"id":"evt_1"}}';
const THIRD = '{"type":"user.deleted","offset":"o3","event":{"id":"evt_3"}}';
/** A dead letter whose event holds a value nested 5,000 levels deep (about 20 KB): it stopped the replay. */
const DEEP_DEAD_LETTER = `{"event":{"type":"user.updated","offset":"o2","event":{"id":"evt_2"},"deep":${deep(5000)}},"offset":"o2","status":422,"attempts":1,"error":"rejected: 422 Unprocessable Entity","at":"2026-11-28T10:00:00.000Z"}`;

function recordedFile(second: string): string {
  const file = join(tempConfigDir(), 'dead.ndjson');
  writeFileSync(file, `${FIRST}\n${second}\n${THIRD}\n`);
  return file;
}

describe('events replay: a line nested too deep is a malformed line', () => {
  it('a dead letter nested 5,000 levels deep (about 20 KB) is skipped, named by its line; the others are printed', async () => {
    expect(DEEP_DEAD_LETTER.length).toBeGreaterThan(20_000);
    const file = recordedFile(DEEP_DEAD_LETTER);
    const r = await runCli(['events', 'replay', file], { env: ENV });
    expect(r).toEqual({
      code: 0,
      stdout: `${FIRST}\n${THIRD}\n`,
      stderr: `svcadm: skipped line 2 of ${file}: nested more than 64 levels deep\nsvcadm: replayed 2 events (1 malformed line skipped)\n`,
    });
  });

  it('a plain line nested as deep says the same', async () => {
    const file = recordedFile(`{"type":"user.updated","offset":"o2","deep":${deep(5000)}}`);
    const r = await runCli(['events', 'replay', file], { env: ENV });
    expect(r).toEqual({
      code: 0,
      stdout: `${FIRST}\n${THIRD}\n`,
      stderr: `svcadm: skipped line 2 of ${file}: nested more than 64 levels deep\nsvcadm: replayed 2 events (1 malformed line skipped)\n`,
    });
  });

  it('forwarding: the first and third events are delivered, the deep line is not sent', async () => {
    const file = recordedFile(DEEP_DEAD_LETTER);
    const app = await loopback([(_req, res) => res.writeHead(204).end()]);
    const r = await runCli(['events', 'replay', file, '--forward-to', `${app.url}/hook`, '-q'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(app.requests.map((q) => q.body)).toEqual([FIRST, THIRD]);
    expect(r.stderr.split('\n')[0]).toBe(`svcadm: skipped line 2 of ${file}: nested more than 64 levels deep`);
  });

  it('--strict stops at it: exit 2, naming line 2, and the resume line points past what was settled', async () => {
    const file = recordedFile(DEEP_DEAD_LETTER);
    const r = await runCli(['events', 'replay', file, '--strict'], { env: ENV });
    expect(r).toEqual({
      code: 2,
      stdout: `${FIRST}\n`,
      stderr: `svcadm: stopped after 1 event\nresume with: svcadm events replay ${file} --from-line 2 --strict\nsvcadm: line 2 of ${file} is not an event: nested more than 64 levels deep\n`,
    });
  });

  it('an event nested 64 levels deep inside a dead letter is still an event', async () => {
    // The stream's own bound (64 levels, the event's object the first) holds inside the dead letter's envelope.
    const payload = `{"type":"user.updated","offset":"o2","deep":${deep(63)}}`;
    const file = recordedFile(`{"event":${payload},"offset":"o2","status":422,"attempts":1,"error":"x","at":"y"}`);
    const r = await runCli(['events', 'replay', file], { env: ENV });
    expect(r).toEqual({ code: 0, stdout: `${FIRST}\n${payload}\n${THIRD}\n`, stderr: '' });
  });
});

describe('events tail: an event nested 5,000 levels deep does not stop the stream', () => {
  const messages = [
    sseMessage('o1', 'user.created', '{"offset":"o1","event":{"id":"evt_1"}}'),
    sseMessage('o2', 'user.updated', `{"offset":"o2","deep":${deep(5000)}}`),
    sseMessage(undefined, 'offset-only', `{"offset":"o3","deep":${deep(5000)}}`),
    `event: error\ndata: {"error":{"code":"processing_error","message":${JSON.stringify(deep(5000))}},"deep":${deep(5000)}}\n\n`,
  ];

  it('it is skipped with a warning, its position kept, and the tail goes on', async () => {
    const server = await hostile({
      api: [
        sse(messages),
        sse([sseMessage('o4', 'user.deleted', '{"offset":"o4","event":{"id":"evt_4"}}')], { keepOpen: true }),
      ],
    });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--max-events', '2', '-o', 'ndjson'], { env, clock: new VirtualClock() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      '{"type":"user.created","offset":"o1","event":{"id":"evt_1"}}\n{"type":"user.deleted","offset":"o4","event":{"id":"evt_4"}}\n',
    );
    expect(r.stderr.split('\n')[0]).toBe(
      'svcadm: warning: skipped a user.updated message whose data is not a JSON object',
    );
    // The reconnect after the stream error resumed after the deep event's offset-only position.
    expect(server.apiRequests()[1]?.query.get('from')).toBe('o3');
  });

  it('forwarding: the deep event is never sent, the others are', async () => {
    const server = await hostile({
      api: [
        sse(messages),
        sse([sseMessage('o4', 'user.deleted', '{"offset":"o4","event":{"id":"evt_4"}}')], { keepOpen: true }),
      ],
    });
    const app = await loopback([(_req, res) => res.writeHead(204).end()]);
    const env = server.env({ SVCADM_TOKEN: 'a-token', ...ENV });
    const r = await runCli(['events', 'tail', '--max-events', '2', '--forward-to', `${app.url}/hook`, '-q'], {
      env,
      clock: new VirtualClock(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(app.requests.map((q) => JSON.parse(q.body).event.id)).toEqual(['evt_1', 'evt_4']);
  });
});
