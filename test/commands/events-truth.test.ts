import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorEnv, emulatorPerTest } from '../helpers/emulator.js';
import { answerJson, eventData, eventIds, hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { refusedPort } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

/** The virtual clock's start: every time a line prints is then known. */
const START = Date.UTC(2026, 2, 1, 12);
const AT_START = '2026-03-01T12:00:00Z';
/** A tail that reached no cursor resumes from its start taken 60 s early (docs/decisions/2026-11-28-resume-from-the-start.md). */
const SLACK_BEFORE_START = '2026-03-01T11:59:00Z';

const hostile = hostileServerPerTest();
const emulator = emulatorPerTest();

describe('events tail exit codes: 0 only if the stream was working', () => {
  it('a run that never connected (connection refused throughout --duration) is exit 7, down since its start', async () => {
    const port = await refusedPort();
    const domain = `http://127.0.0.1:${port}`;
    const r = await runCli(['events', 'tail', '--duration', '8s', '--quiet'], {
      env: { SVCADM_DOMAIN: domain, SVCADM_TOKEN: 'a-token' },
      clock: new VirtualClock(START),
    });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the event stream has been down since ${AT_START}, never connected: connection refused by 127.0.0.1:${port} — resume with: svcadm --domain ${domain} events tail --since ${SLACK_BEFORE_START}\n`,
    });
  });

  it('says the same in the JSON envelope when data was asked for', async () => {
    const port = await refusedPort();
    const domain = `http://127.0.0.1:${port}`;
    const r = await runCli(['events', 'tail', '--duration', '8s', '--quiet', '-o', 'ndjson'], {
      env: { SVCADM_DOMAIN: domain, SVCADM_TOKEN: 'a-token' },
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    // `code` is the output part's (a stable local code); the rest is this part's.
    const { code: _code, ...error } = (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;
    expect({ error }).toEqual({
      error: {
        status: null,
        message: `the event stream has been down since ${AT_START}, never connected: connection refused by 127.0.0.1:${port}`,
        hint: `resume with: svcadm --domain ${domain} -o ndjson events tail --since ${SLACK_BEFORE_START}`,
        exit_code: 7,
      },
    });
  });

  it('a service that goes away for good halfway is exit 7, down since the drop, resuming after the last event', async () => {
    const clock = new VirtualClock(START);
    const server = await hostile({
      api: [
        sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]),
        answerJson(503, { message: 'Service unavailable' }),
      ],
    });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--duration', '10s', '--quiet'], { env, clock });
    expect(eventIds(r.stdout)).toEqual(['e1']);
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `svcadm: the event stream has been down since ${AT_START}: the service failed: Service unavailable — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from c1\n`,
    );
  });

  it('a drop whose reconnect is not yet due when --duration ends is not down: exit 0', async () => {
    const server = await hostile({ api: sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]) });
    const clock = new VirtualClock(START);
    const r = await runCli(['events', 'tail', '--duration', '1s', '--quiet'], { env: server.env(), clock });
    expect(r).toEqual({
      code: 0,
      stdout: `${eventData('c1', 'e1').replace('{', '{"type":"user.created",')}\n`,
      stderr: '',
    });
    // The first reconnect waits 1.125 s: --duration (1 s) ends during that wait, before any attempt failed.
    expect(clock.sleeps).toEqual([1125]);
    expect(server.apiRequests()).toHaveLength(1);
  });

  it('Ctrl-C while the stream is down keeps exit 130 and says since when it was down', async () => {
    const port = await refusedPort();
    const domain = `http://127.0.0.1:${port}`;
    const interrupt = new AbortController();
    const r = await runCli(['events', 'tail'], {
      env: { SVCADM_DOMAIN: domain, SVCADM_TOKEN: 'a-token' },
      clock: new VirtualClock(START),
      interrupt: interrupt.signal,
      onStderr: (chunk) => {
        if (chunk.includes('(attempt 2)')) interrupt.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr.split('\n').slice(-3)).toEqual([
      `svcadm: interrupted after 0 events (the event stream has been down since ${AT_START}, never connected: connection refused by 127.0.0.1:${port})`,
      `resume with: svcadm --domain ${domain} events tail --since ${SLACK_BEFORE_START}`,
      '',
    ]);
  });

  it('SIGHUP and SIGTERM say "hung up" and "terminated", with their exit codes', async () => {
    for (const [signal, word, code] of [
      ['SIGHUP', 'hung up', 129],
      ['SIGTERM', 'terminated', 143],
    ] as const) {
      const server = await hostile({
        api: sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))], { keepOpen: true }),
      });
      const env = server.env();
      const interrupt = new AbortController();
      const r = await runCli(['events', 'tail'], {
        env,
        interrupt: interrupt.signal,
        onStdout: () => interrupt.abort(new Interrupted(signal)),
      });
      expect(r.code).toBe(code);
      expect(r.stderr).toBe(
        `svcadm: ${word} after 1 event\nresume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from c1\n`,
      );
      await server.close();
    }
  });
});

describe('stream rotation (connection_timeout) is followed silently', () => {
  it('resumes at once from the rotation offset with Last-Event-ID: no stderr line, not a reconnect', async () => {
    const server = await hostile({
      api: [
        sse([
          sseMessage('c1', 'user.created', eventData('c1', 'e1')),
          'event: error\ndata: {"error":{"code":"connection_timeout","message":"rotate","offset":"c1"}}\n\n',
        ]),
        sse([sseMessage('c2', 'user.created', eventData('c2', 'e2'))], { keepOpen: true }),
      ],
    });
    const clock = new VirtualClock(START);
    const r = await runCli(['events', 'tail', '--max-events', '2', '--max-reconnects', '0'], {
      env: server.env(),
      clock,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(eventIds(r.stdout)).toEqual(['e1', 'e2']);
    expect(clock.sleeps).toEqual([]);
    const second = server.apiRequests()[1];
    expect(second?.query.get('from')).toBe('c1');
    expect(second?.headers['last-event-id']).toBe('c1');
  });

  it('against the emulator: 110 events across a rotation, no gap, no repeat, nothing on stderr', async () => {
    const e = await emulator({ events: 100, eventRate: 0, heartbeatMs: 0 });
    let fired = false;
    let seen = 0;
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '110', '--max-reconnects', '0'], {
      env: emulatorEnv(e),
      onStdout: (chunk) => {
        seen += chunk.split('\n').length - 1;
        if (fired || seen < 100) return;
        fired = true;
        void e.streamError('connection_timeout').then(() => e.emit('user.updated', 10));
      },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    expect(new Set(lines.map((l) => (JSON.parse(l) as { offset: string }).offset)).size).toBe(110);
    const opens = (await e.requests()).requests.filter((q) => q.path === '/api/v2/events');
    expect(opens).toHaveLength(2);
  });

  it('the emulator rotates each stream after --stream-lifetime; svcadm follows silently, not counted', async () => {
    const e = await emulator({ events: 25, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5, streamLifetimeMs: 50 });
    const opens = async () => (await e.requests()).requests.filter((q) => q.path === '/api/v2/events').length;
    const tail = runCli(['events', 'tail', '--max-events', '3', '--max-reconnects', '0'], {
      env: emulatorEnv(e),
    });
    // Condition, not time: three streams opened means two rotations were followed.
    while ((await opens()) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    await e.emit('user.created', 3);
    const r = await tail;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('tenants the stream is not for', () => {
  it('a tenant without the Events feature (emulator: 404 Not found) is exit 5 with what to do', async () => {
    const emu = await emulator({ eventsFeature: false });
    const r = await runCli(['events', 'tail'], { env: emulatorEnv(emu) });
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'svcadm: this tenant has no event stream: Not found — the Events feature is not enabled on this tenant (or --domain names another service): enable it in the tenant settings\n',
    });
    const opens = (await emu.requests()).requests.filter((q) => q.path === '/api/v2/events');
    expect(opens.map((q) => q.status)).toEqual([404]);
  });
});

/** A stdout whose writes fail like a pipe's: the error comes after `write()` has returned, with `code`. */
function failingStdout(code: string, goodWrites = 0): Writable {
  let writes = 0;
  const stdout = new Writable({
    write(_chunk, _encoding, callback) {
      writes++;
      const fail = writes > goodWrites;
      setImmediate(() => callback(fail ? Object.assign(new Error(`write ${code}`), { code }) : null));
    },
  });
  // As `main` listens on process.stdout: the failure is read from the stream, never an uncaught error.
  return stdout.on('error', () => {});
}

describe('the cursor file moves only past lines written without error', () => {
  it('a stdout that fails after the write returned: exit 74, the file still at the last batch written', async () => {
    const server = await hostile({
      api: sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))], { keepOpen: true }),
    });
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    writeFileSync(file, 'c0\n');
    const r = await runCli(['events', 'tail', '--cursor-file', file], { env, stdout: failingStdout('EIO') });
    expect(r.code).toBe(74);
    expect(r.stderr).toBe(
      `svcadm: cannot write to stdout: input/output error (EIO) — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --from c0 --cursor-file ${file}\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('c0\n');
    expect(server.apiRequests()[0]?.query.get('from')).toBe('c0');
  });

  it('--from wins over the cursor file (documented precedence); the file then follows the stream', async () => {
    const server = await hostile({
      api: sse([sseMessage('c9', 'user.created', eventData('c9', 'e9'))], { keepOpen: true }),
    });
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    writeFileSync(file, 'c0\n');
    const r = await runCli(['events', 'tail', '--cursor-file', file, '--from', 'c5', '--max-events', '1'], { env });
    expect(r.code).toBe(0);
    expect(server.apiRequests()[0]?.query.get('from')).toBe('c5');
    expect(readFileSync(file, 'utf8')).toBe('c9\n');
  });
});
