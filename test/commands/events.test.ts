import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { type EmulatorOptions, emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { startPlainTcp } from '../helpers/loopback-server.js';
import { BIN, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { runInScriptTerminal } from '../helpers/script-terminal.js';

const startEmulator = emulatorPerTest();

/** A quiet emulator: a fixed history, no live events, fast `retry:` so reconnects do not dominate the test time. */
function emulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  return startEmulator({ events: 200, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5, ...opts });
}

interface Line {
  type: string;
  offset: string;
  event: { id: string; type: string };
}

function lines(stdout: string): Line[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
}

/** Emulator offsets are base64url `ev1:<epoch>:<position base 36>:<check>` (a test may peek; the CLI never does). */
function position(offset: string): number {
  const parts = Buffer.from(offset, 'base64url').toString('latin1').split(':');
  return Number.parseInt(parts[2] ?? '', 36);
}

/** Calls `then` once `count` NDJSON lines have been written. */
function afterLines(count: number, then: () => void): (chunk: string) => void {
  let seen = 0;
  let fired = false;
  return (chunk) => {
    seen += chunk.split('\n').length - 1;
    if (!fired && seen >= count) {
      fired = true;
      then();
    }
  };
}

/**
 * Runs `svcadm events tail --cursor-file <file>` as a child process and sends it `signal` once `when(stdout)` holds.
 * Resolves with what it printed and its exit code.
 */
function tailUntil(
  env: Record<string, string>,
  file: string,
  signal: NodeJS.Signals,
  when: (stdout: string) => boolean,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'events', 'tail', '--cursor-file', file], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return new Promise((resolve) => {
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      if (!child.killed && when(stdout)) child.kill(signal);
    });
    child.on('exit', (code) => resolve({ stdout, stderr, code }));
  });
}

const SINCE_ALL = ['--since', '7d'];

describe('events tail: parsing', () => {
  /** Nothing listens there: a parsing error must come before any request. */
  const offline = { SVCADM_DOMAIN: 'http://127.0.0.1:9' };

  it('rejects an unknown type with the nearest valid name', async () => {
    const r = await runCli(['events', 'tail', '--type', 'user.create'], {
      env: offline,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "svcadm: unknown event type 'user.create' (did you mean user.created?) — run 'svcadm events tail --help' for the 25 event types\n",
    );
  });

  it('offers a whole group for a group name, and no guess when nothing is close', async () => {
    const group = await runCli(['events', 'tail', '--type', 'user'], { env: offline });
    expect(group).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "svcadm: unknown event type 'user' (did you mean user.created,user.deleted,user.updated?) — run 'svcadm events tail --help' for the 25 event types\n",
    });
    const far = await runCli(['events', 'tail', '--type', 'bogus.x'], { env: offline });
    expect(far).toEqual({
      code: 2,
      stdout: '',
      stderr: "svcadm: unknown event type 'bogus.x' — run 'svcadm events tail --help' for the 25 event types\n",
    });
  });

  it('checks every value of a comma list', async () => {
    const r = await runCli(['events', 'tail', '--type', 'user.created,organisation.created'], {
      env: offline,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown event type 'organisation.created' (did you mean organization.created?)");
  });

  it.each([
    [['--from', 'abc', '--since', '1h'], '--from and --since cannot be combined'],
    [['--from', 'x'.repeat(1025)], '--from must be a cursor: 1 to 1024 visible ASCII characters'],
    [['--since', 'yesterday'], "invalid --since 'yesterday'"],
    [['--since', '2024-02-30T00:00:00Z'], 'not a real date'],
    [['--max-events', '0'], '--max-events must be at least 1'],
    [['--duration', 'soon'], 'invalid --duration'],
    [['--max-reconnects', '-1'], '--max-reconnects must be a whole number'],
  ])('%j is a usage error (exit 2), nothing sent', async (args, message) => {
    const e = await emulator();
    const r = await runCli(['events', 'tail', ...args], { env: emulatorEnv(e) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect((await e.requests()).counters.interfaceRequests).toBe(0);
  });
});

describe('events tail: the stream', () => {
  it('prints NDJSON with the type injected, oldest first, and stops after --max-events with exit 0', async () => {
    const e = await emulator();
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '200'], { env: emulatorEnv(e) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const got = lines(r.stdout);
    expect(got).toHaveLength(200);
    expect(Object.keys(got[0] ?? {})[0]).toBe('type');
    for (const line of got) expect(line.type).toBe(line.event.type);
    expect(got.map((l) => position(l.offset))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('sends every --since form as from_timestamp YYYY-MM-DDTHH:MM:SSZ', async () => {
    // Live events end each run at its first event, however slow the machine (a --duration could end it unsent).
    const e = await emulator({ eventRate: 50 });
    const env = emulatorEnv(e);
    const before = Date.now();
    for (const since of ['30s', '15m', '2h', '7d', '2024-05-01T12:00:00.5+02:00', '2024-05-01t10:00:00z']) {
      const r = await runCli(['events', 'tail', '--since', since, '--max-events', '1'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const sent = (await e.requests()).requests
      .filter((q) => q.path === '/api/v2/events')
      .map((q) => new URLSearchParams(q.query).get('from_timestamp') ?? '');
    expect(sent).toHaveLength(6);
    for (const ts of sent) expect(ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const back = [30_000, 15 * 60_000, 2 * 3_600_000, 7 * 86_400_000];
    back.forEach((ms, i) => {
      const at = Date.parse(sent[i] ?? '');
      expect(at).toBeGreaterThanOrEqual(Math.floor((before - ms) / 1000) * 1000 - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() - ms);
    });
    expect(sent.slice(4)).toEqual(['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z']);
  });

  it('repeats event_type once per type, from repeated flags and comma lists', async () => {
    const e = await emulator();
    const r = await runCli(
      [
        'events',
        'tail',
        ...SINCE_ALL,
        '--type',
        'user.created,user.deleted',
        '--type',
        'group.created',
        '--max-events',
        '5',
      ],
      { env: emulatorEnv(e) },
    );
    expect(r.code).toBe(0);
    const got = lines(r.stdout);
    expect(got).toHaveLength(5);
    for (const line of got) expect(['user.created', 'user.deleted', 'group.created']).toContain(line.type);
    const q = (await e.requests()).requests.find((x) => x.path === '/api/v2/events');
    expect(new URLSearchParams(q?.query).getAll('event_type')).toEqual([
      'user.created',
      'user.deleted',
      'group.created',
    ]);
  });

  it('delivers 1,000 events dropped every 37 complete, in order, without repeats, resuming with from and Last-Event-ID', async () => {
    const e = await emulator({ events: 1000, dropStreamsAfter: 37 });
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '1000'], { env: emulatorEnv(e) });
    expect(r.code).toBe(0);
    const got = lines(r.stdout);
    expect(got.map((l) => position(l.offset))).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(new Set(got.map((l) => l.event.id)).size).toBe(1000);
    expect(r.stderr).toContain('svcadm: the service closed the event stream; reconnecting in');
    expect(r.stderr).not.toMatch(/error/i);
    const opens = (await e.requests()).requests.filter((q) => q.path === '/api/v2/events');
    expect(opens.length).toBe(28);
    const resumed = opens[1];
    expect(new URLSearchParams(resumed?.query).get('from')).toBe(got[36]?.offset);
    expect(resumed?.headers['last-event-id']).toBe(got[36]?.offset);
    expect(new URLSearchParams(resumed?.query).get('from_timestamp')).toBeNull();
  });

  it('reports a transient stream error on stderr and resumes after it', async () => {
    const e = await emulator({ events: 100 });
    const trigger = afterLines(100, () => {
      void e.streamError('processing_error', 'Processing failed, retry').then(() => e.emit('user.created', 20));
    });
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '120'], {
      env: emulatorEnv(e),
      onStdout: trigger,
    });
    expect(r.code).toBe(0);
    const got = lines(r.stdout);
    expect(got.map((l) => position(l.offset))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(r.stdout).not.toContain('processing_error');
    expect(r.stderr).toContain(
      'svcadm: the service reported a stream error (processing_error): Processing failed, retry\n',
    );
    expect(r.stderr).toContain('reconnecting in');
  });

  it('refreshes a token revoked mid-stream and carries on', async () => {
    const e = await emulator({ events: 100 });
    const trigger = afterLines(100, () => {
      void e
        .revokeTokens()
        .then(() => e.dropStreams())
        .then(() => e.emit('user.updated', 10));
    });
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '110'], {
      env: emulatorEnv(e),
      onStdout: trigger,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => position(l.offset))).toEqual(Array.from({ length: 110 }, (_, i) => i + 1));
    const { requests, counters } = await e.requests();
    expect(counters.tokenRequests).toBe(2);
    const opens = requests.filter((q) => q.path === '/api/v2/events');
    expect(opens.map((q) => q.status).slice(0, 2)).toEqual([200, 401]);
    expect(opens).toHaveLength(3);
  });

  it('waits for Retry-After on a 429, then streams', async () => {
    const e = await emulator({ events: 50 });
    await e.rateLimitNext('/events', 1, 1);
    const clock = new VirtualClock();
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '50'], { env: emulatorEnv(e), clock });
    expect(r.code).toBe(0);
    // The 1 s backoff before any `retry:` (plus 12.5% jitter at random 0.5) already covers Retry-After: 1.
    expect(clock.sleeps).toEqual([1125]);
    expect(lines(r.stdout)).toHaveLength(50);
    expect(r.stderr).toMatch(
      /^svcadm: rate limited: Global limit has been reached; reconnecting in 1\.\ds \(attempt 1\)\n$/,
    );
  });

  it('gives up after --max-reconnects with the code of the last failure', async () => {
    const e = await emulator();
    await e.failNext({ path: '/events', status: 503, count: 5 });
    const clock = new VirtualClock();
    const r = await runCli(['events', 'tail', '--max-reconnects', '2', '-o', 'ndjson'], { env: emulatorEnv(e), clock });
    expect(r.code).toBe(7);
    // Exponential from the 1 s default, with 12.5% jitter (random 0.5): never faster than the server's retry.
    expect(clock.sleeps).toEqual([1125, 2250]);
    const envelope = JSON.parse(r.stderr.trim().split('\n').pop() ?? '');
    expect(envelope.error).toMatchObject({ status: 503, exit_code: 7 });
    expect((await e.requests()).requests.filter((q) => q.path === '/api/v2/events')).toHaveLength(3);
  });

  it('stops on 410 with exit 8 and a hint to restart with --since', async () => {
    const e = await emulator();
    const { before } = await e.emit('user.created', 1);
    await e.expireCursors();
    const r = await runCli(['events', 'tail', '--from', before], { env: emulatorEnv(e) });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    // The hint is a complete command: it names the tenant this run used (here from SVCADM_DOMAIN).
    expect(r.stderr).toBe(
      `svcadm: the cursor has expired: Cursor points to data no longer available in the stream. — restart with --since (e.g. \`svcadm --domain ${e.url} events tail --since 1h\`)\n`,
    );
  });

  it('stops at once on TLS to a plain port, suggesting http:// for a server on this machine', async () => {
    const plain = await startPlainTcp();
    try {
      const { port } = plain;
      const r = await runCli(['events', 'tail', '--domain', `https://127.0.0.1:${port}`], {
        env: { SVCADM_TOKEN: 'a-token', SVCADM_CONFIG_DIR: tempConfigDir() },
      });
      expect(r.code).toBe(7);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `svcadm: the server at 127.0.0.1:${port} does not speak TLS (is it plain http?) — for a server on this machine without TLS, use --domain http://127.0.0.1:${port}\n`,
      );
      expect(plain.connections()).toBe(1);
    } finally {
      await plain.close();
    }
  });

  it("says in plain words when too many streams are open (api-notes: the vendor's 403, no errorCode)", async () => {
    const e = await emulator({ maxStreams: 0 });
    const r = await runCli(['events', 'tail'], { env: emulatorEnv(e) });
    expect(r).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'svcadm: too many event streams are open at once for this tenant: Maximum concurrent event stream connections reached. Please close existing connections. — plans allow 1, 4 or 8 event streams at once: stop another `svcadm events tail` (or other consumer), then try again\n',
    });
  });

  it('stops cleanly on Ctrl-C: exit 130, the count and the resume line, no JSON envelope', async () => {
    const e = await emulator({ events: 100 });
    const interrupt = new AbortController();
    const env = emulatorEnv(e);
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '-o', 'ndjson'], {
      env,
      interrupt: interrupt.signal,
      onStdout: afterLines(100, () => interrupt.abort()),
    });
    expect(r.code).toBe(130);
    const got = lines(r.stdout);
    expect(got).toHaveLength(100);
    const last = got[99]?.offset ?? '';
    expect(r.stderr).toBe(
      `svcadm: interrupted after 100 events\nresume with: svcadm --domain ${e.url} -o ndjson events tail --from ${last}\n`,
    );
    await e.emit('group.created', 3);
    const resumed = await runCli(['events', 'tail', '--from', last, '--max-events', '3'], { env });
    expect(lines(resumed.stdout).map((l) => position(l.offset))).toEqual([101, 102, 103]);
  });

  it('renders plain event lines for -o table off a terminal, service strings neutralised', async () => {
    const e = await emulator();
    await e.emit('user.created', 1, { user_id: 'db|x', email: 'eve@example.com', name: 'Eve \x1b[31mRed' });
    const r = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '201', '-o', 'table'], {
      env: emulatorEnv(e),
    });
    expect(r.code).toBe(0);
    const out = r.stdout.trim().split('\n');
    // A heading before each day's first event (the history spans several days), then one line per event, in UTC.
    const headings = out.filter((l) => l.startsWith('── '));
    expect(headings.length).toBeGreaterThan(1);
    for (const h of headings) expect(h).toMatch(/^── \d{4}-\d\d-\d\d UTC( \(today\))? ──$/);
    const events = out.filter((l) => !l.startsWith('── '));
    expect(events).toHaveLength(201);
    expect(events[200]).toMatch(
      /^\d\d:\d\d:\d\d {2}user\.created {23}evt_\S+ {2}eve@example\.com \(Eve \\x1b\[31mRed\)$/,
    );
    expect(r.stdout).not.toContain('\x1b');
  });
});

describe('events tail: the cursor file', () => {
  it('moves on offset-only heartbeats while nothing is printed (api-notes: heartbeats on every stream, also idle and unfiltered)', async () => {
    const e = await emulator({ heartbeatMs: 10 });
    const dir = tempConfigDir();
    const file = join(dir, 'cursor');
    const stop = new AbortController();
    // The file holds where the tail started (`{"since":…}`) until a heartbeat's offset moves it.
    const watcher = watch(dir, () => {
      if (existsSync(file) && /^[^{\s]/.test(readFileSync(file, 'utf8'))) stop.abort();
    });
    try {
      const r = await runCli(['events', 'tail', '--cursor-file', file], {
        env: emulatorEnv(e),
        interrupt: stop.signal,
      });
      expect(r.code).toBe(130);
      expect(r.stdout).toBe('');
      const cursor = readFileSync(file, 'utf8').trim();
      // Started at the latest event (the 200 of the history): the heartbeat's offset is that position.
      expect(position(cursor)).toBe(200);
      expect(r.stderr).toBe(
        `svcadm: interrupted after 0 events\nresume with: svcadm --domain ${e.url} events tail --from ${cursor} --cursor-file ${file}\n`,
      );
    } finally {
      watcher.close();
    }
  });

  it('starts from the file, keeps it current and leaves the last cursor on exit', async () => {
    const e = await emulator();
    const env = emulatorEnv(e);
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const first = await runCli(['events', 'tail', ...SINCE_ALL, '--max-events', '60', '--cursor-file', file], { env });
    const firstLines = lines(first.stdout);
    expect(readFileSync(file, 'utf8')).toBe(`${firstLines[59]?.offset}\n`);
    const second = await runCli(['events', 'tail', '--max-events', '40', '--cursor-file', file], { env });
    expect(lines(second.stdout).map((l) => position(l.offset))).toEqual(Array.from({ length: 40 }, (_, i) => i + 61));
    expect(position(readFileSync(file, 'utf8').trim())).toBe(100);
  });

  it('survives kill -9 mid-run as a valid cursor, and a resume continues without a gap', async () => {
    const e = await emulator({ events: 100, eventRate: 400 });
    const env = emulatorEnv(e);
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    // Past the first write of the file (throttled to once a second), well into the run.
    const { stdout: out } = await tailUntil(
      env,
      file,
      'SIGKILL',
      (o) => existsSync(file) && o.split('\n').length > 600,
    );
    const printed = out
      .split('\n')
      .slice(0, -1)
      .map((l) => position((JSON.parse(l) as Line).offset));
    const saved = readFileSync(file, 'utf8');
    expect(saved).toMatch(/^[A-Za-z0-9_-]+\n$/);
    const savedAt = position(saved.trim());
    // At least once: the file never runs ahead of what was printed.
    expect(printed).toContain(savedAt);
    // The kill can land just after a write: make sure the 50 events after the saved cursor exist.
    await e.updateSettings({ eventRate: 0 });
    await e.emit('user.created', 50);
    const resumed = await runCli(['events', 'tail', '--cursor-file', file, '--max-events', '50'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(resumed.stdout).map((l) => position(l.offset))).toEqual(
      Array.from({ length: 50 }, (_, i) => savedAt + 1 + i),
    );
  });

  it('stops cleanly on SIGTERM: exit 143, the resume line, and the file holding the last printed cursor', async () => {
    const e = await emulator({ events: 100, eventRate: 400 });
    const env = emulatorEnv(e);
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const { stdout: out, stderr: err, code } = await tailUntil(env, file, 'SIGTERM', (o) => o.split('\n').length > 200);
    expect(code).toBe(143);
    const printed = lines(out);
    const last = printed[printed.length - 1]?.offset;
    expect(readFileSync(file, 'utf8')).toBe(`${last}\n`);
    expect(err).toBe(
      `svcadm: terminated after ${printed.length} events\nresume with: svcadm --domain ${e.url} events tail --from ${last} --cursor-file ${file}\n`,
    );
  });
});

describe('events tail: the live view', () => {
  it('shows the status line and one line per event in a pseudo-terminal', async () => {
    // Fails with what is missing rather than skipping: util-linux's script makes the pseudo-terminal.
    if (!existsSync('/usr/bin/script')) throw new Error('script is not installed: apt-get install -y bsdutils');
    const e = await emulator({ events: 30 });
    const env = emulatorEnv(e);
    // A pty made by `script` off a terminal has no size: give it one, as a terminal would.
    const command = `stty rows 40 cols 160; exec ${process.execPath} ${BIN} events tail --since 7d --max-events 30`;
    const output = await runInScriptTerminal(command, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TERM: 'xterm-256color',
      COLUMNS: '160',
      ...env,
    });
    expect(output.code).toBe(0);
    const plain = output.text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    // The last status line says it stopped, and why; under it (the interactive view, issue 21) the count of each type.
    const end =
      /■ stopped: reached --max-events · 30 events · all types · cursor [A-Za-z0-9_-]+\n((?: +\d+ {2}[a-z.]+\n)+)$/;
    expect(plain).toMatch(end);
    const counts = (end.exec(plain)?.[1] ?? '').trim().split('\n');
    expect(counts.reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[0]), 0)).toBe(30);
    const eventLines = plain.split('\n').filter((l) => /^\d\d:\d\d:\d\d {2}[a-z.]+ +evt_/.test(l));
    expect(eventLines).toHaveLength(30);
    expect(output.text).toMatch(/\x1b\[3[2-6]m(user|group|organization|connection)\./);
  });
});
