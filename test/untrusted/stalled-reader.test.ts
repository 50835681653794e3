import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Behaviour, hostileServerPerTest, sseMessage } from '../helpers/hostile-server.js';
import { BIN } from '../helpers/run-cli.js';

// Issue 38, point 2: stdout's reader is alive but reads nothing (`svcadm events tail | ./slow-handler.sh`, an `--all`
// list into a stuck pipe). A stop signal still ends the run within 2 s with its exit code, says so on stderr when
// stderr can take a line (never waiting on it: it may be the same stuck pipe), and keeps what was settled: the cursor
// file and the resume line name the last event the pipe took.
//
// stdout is a real pipe (a FIFO: a Node parent's 'pipe' is a socket pair), which the test never reads until the run is
// over. The pipe is known to be full once the child has written more than it holds (its write count in /proc).
// SVCADM_TEST_SHOW_STOP_TIMES=1 prints each stop's time, from the signal to the exit, on stderr.

const hostile = hostileServerPerTest();

/** Children still running after a failed test are killed, not left holding the test's pipe. */
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** What a default pipe holds (64 KiB): the child is stuck once it has written about this much. */
const PIPE_FULL_BYTES = 60 * 1024;
/** The requirement is 2 s from the signal to the exit; real time is measured here, as an upper bound only. */
const STOP_BOUND_MS = 2000;

interface Stalled {
  child: ChildProcess;
  /** Resolves once the child has written at least `bytes` (`wchar` of /proc/<pid>/io). */
  written(bytes: number): Promise<void>;
  /** Sends `signal`; resolves when the child has exited, with what the pipe then holds. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }>;
}

/** The built CLI with stdout (and, with `sharedStderr`, stderr too) into a FIFO whose reader never reads. */
function stalledRun(argv: string[], env: Record<string, string>, sharedStderr = false): Stalled {
  const fifo = join(mkdtempSync(join(tmpdir(), 'svcadm-stalled-')), 'stdout');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', writer, sharedStderr ? writer : 'pipe'],
  });
  closeSync(writer);
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stderrRead = new Promise((resolve) => (child.stderr ? child.stderr.on('close', resolve) : resolve(undefined)));
  return {
    child,
    async written(bytes) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
        if (Number(/^wchar: (\d+)$/m.exec(io)?.[1]) >= bytes) return;
        if (Date.now() > deadline) throw new Error(`the child never wrote ${bytes} bytes: ${io}; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop(signal) {
      const from = performance.now();
      child.kill(signal);
      const code = await exited;
      const ms = performance.now() - from;
      if (process.env.SVCADM_TEST_SHOW_STOP_TIMES)
        process.stderr.write(`stop ${argv.join(' ')} ${signal}: ${ms.toFixed(0)} ms\n`);
      const chunks: Buffer[] = [];
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(reader, buffer);
        if (n === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, n)));
      }
      closeSync(reader);
      await stderrRead;
      return { code, ms, stdout: Buffer.concat(chunks).toString('utf8'), stderr };
    },
  };
}

/** The offsets of the whole NDJSON lines of a tail's stdout (the last line may have been cut by the stop). */
function offsetsOf(stdout: string): string[] {
  const lines = stdout.split('\n').slice(0, -1);
  return lines.map((line) => (JSON.parse(line) as { offset: string }).offset);
}

/** The tail's line of event `n`, as the stream sends it (about 300 bytes). */
const eventData = (n: number) =>
  JSON.stringify({ type: 'user.created', offset: `c${n}`, data: { user_id: `auth0|${n}`, note: 'x'.repeat(200) } });

/**
 * An event stream that sends 100 events (about 30 KB of output: the pipe takes them, and they settle), then, when
 * told, 1,000 more at once: far more than the pipe has room for, so the tail is left holding output it cannot write.
 */
function heldBackStream() {
  let response: ServerResponse | undefined;
  let sent = 0;
  const send = (count: number) => {
    const messages: string[] = [];
    for (let k = 0; k < count; k++) messages.push(sseMessage(`c${++sent}`, 'user.created', eventData(sent)));
    response?.write(messages.join(''));
  };
  const behaviour: Behaviour = (_req, res) => {
    response = res;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    send(100);
  };
  return { behaviour, more: () => send(1000) };
}

/** A tail whose pipe is full, and which holds more: the stream's first events settled, then the rest came. */
async function stuckTail(sharedStderr = false) {
  const stream = heldBackStream();
  const server = await hostile({ api: stream.behaviour });
  const env = server.env();
  const file = join(mkdtempSync(join(tmpdir(), 'svcadm-cursor-')), 'cursor');
  const run = stalledRun(['events', 'tail', '--since', SINCE, '--cursor-file', file], env, sharedStderr);
  await run.written(24 * 1024);
  stream.more();
  await run.written(PIPE_FULL_BYTES);
  return { run, server, file };
}

const SINCE = '2000-01-01T00:00:00Z';

const STOPS = [
  ['SIGTERM', 143, 'terminated'],
  ['SIGINT', 130, 'interrupted'],
] as const;

describe.each(STOPS)('%s with a reader that does not read', (signal, exitCode, words) => {
  it(`events tail: exit ${exitCode} within 2 s, the stop and resume lines, the cursor file at what the pipe took`, async () => {
    const { run, server, file } = await stuckTail();
    const { code, ms, stdout, stderr } = await run.stop(signal);
    expect(code).toBe(exitCode);
    expect(ms).toBeLessThan(STOP_BOUND_MS);
    const offsets = offsetsOf(stdout);
    const cursor = readFileSync(file, 'utf8').trim();
    // Every event up to the cursor reached the reader: the cursor never moves past what the pipe took.
    const settled = offsets.indexOf(cursor) + 1;
    expect(settled).toBeGreaterThanOrEqual(100);
    expect(stderr).toBe(
      `svcadm: ${words} after ${settled} events\nresume with: svcadm --domain ${server.url} events tail --from ${cursor} --cursor-file ${file}\n`,
    );
  });

  it(`policies list --all -o json: exit ${exitCode} within 2 s, and the error envelope on stderr`, async () => {
    const server = await hostile({ api: pagesOfPolicies(40, 500) });
    const run = stalledRun(['policies', 'list', '--all', '-o', 'json'], server.env());
    await run.written(PIPE_FULL_BYTES);
    const { code, ms, stderr } = await run.stop(signal);
    expect(code).toBe(exitCode);
    expect(ms).toBeLessThan(STOP_BOUND_MS);
    expect(stderr).toBe(
      `${JSON.stringify({ error: { status: null, code: words, message: words, exit_code: exitCode } })}\n`,
    );
  });
});

describe('SIGTERM when stderr is the same stuck pipe', () => {
  it('events tail: exit 143 within 2 s, never waiting on stderr, the cursor file at what the pipe took', async () => {
    const { run, file } = await stuckTail(true);
    const { code, ms, stdout } = await run.stop('SIGTERM');
    expect(code).toBe(143);
    expect(ms).toBeLessThan(STOP_BOUND_MS);
    // The stop line went where the pipe had room, if anywhere (after a cut line, as with any `2>&1`), and nothing
    // waited for it; the cursor names an event the reader has.
    expect(stdout).toContain(`"offset":"${readFileSync(file, 'utf8').trim()}"`);
  });

  it('policies list --all -o json: exit 143 within 2 s', async () => {
    const server = await hostile({ api: pagesOfPolicies(40, 500) });
    const run = stalledRun(['policies', 'list', '--all', '-o', 'json'], server.env(), true);
    await run.written(PIPE_FULL_BYTES);
    const { code, ms } = await run.stop('SIGTERM');
    expect(code).toBe(143);
    expect(ms).toBeLessThan(STOP_BOUND_MS);
  });
});

/** `pages` pages of `perPage` rate limit policies (about 150 bytes each as JSON), then the end of the list. */
function pagesOfPolicies(pages: number, perPage: number): Behaviour {
  let page = 0;
  return (_req, res) => {
    page++;
    const items = Array.from({ length: perPage }, (_, k) => ({
      id: `rlp_${page}_${k}`,
      resource: 'oauth_authentication_api',
      consumer: 'client',
      selector: 'default',
      limit: { count: 100, window: '1m' },
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ rate_limit_policies: items, ...(page < pages ? { next: `cp-${page}` } : {}) }));
  };
}
