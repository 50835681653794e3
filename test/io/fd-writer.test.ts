import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileServer, sse, sseMessage, startHostileServer } from '../helpers/hostile-server.js';
import { FULL_TMPFS, needsMountNamespace, skipWithoutMountNamespace } from '../helpers/mount-namespace.js';
import { BIN, tempConfigDir } from '../helpers/run-cli.js';

// `events tail` into a pipe or a file writes from the thread pool (src/io/fd-writer.ts): the same bytes, in order,
// and a failed write ends the run as before. A shell makes the pipes here, as in a terminal: a child's stdio from
// Node is a socket pair, which is written the ordinary way.
const COUNT = 20_000;
const data = (n: number) =>
  JSON.stringify({ type: 'user.created', offset: `c${n}`, data: { user_id: `auth0|${n}`, note: 'x'.repeat(120) } });
const messages = Array.from({ length: COUNT }, (_, i) => sseMessage(`c${i + 1}`, 'user.created', data(i + 1)));
const expected = Array.from({ length: COUNT }, (_, i) => `${data(i + 1)}\n`).join('');
const SINCE = '2000-01-01T00:00:00Z';
const TAIL = ['events', 'tail', '--since', SINCE, '--max-events', String(COUNT), '-o', 'ndjson'];

// Preloaded: counts the thread-pool writes to fd 1, so that a silent fall back to the stream's writes shows.
const PROBE = `
const fs = require('node:fs');
const write = fs.write;
let calls = 0;
fs.write = function (fd, ...rest) { if (fd === 1) calls++; return write.call(this, fd, ...rest); };
process.on('exit', () => fs.writeFileSync(process.env.PROBE_OUT, String(calls)));
`;

let server: HostileServer;
let probe: string;
beforeAll(async () => {
  server = await startHostileServer({ api: sse(messages, { keepOpen: true }) });
  probe = join(tempConfigDir(), 'probe.cjs');
  writeFileSync(probe, PROBE);
});

/** The environment of a probed tail; `writes()` then reads how many thread-pool writes it made. */
function probed() {
  const out = join(tempConfigDir(), 'writes');
  return {
    env: server.env({ NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out }),
    writes: () => Number(readFileSync(out, 'utf8')),
  };
}
afterAll(() => server.close());

/** `script` in sh, with "$@" the tail (node, the built svcadm and TAIL): stdout and stderr of the shell. */
function shell(script: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', script, 'sh', process.execPath, BIN, ...TAIL],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout, stderr) => resolve({ stdout, stderr }),
    );
  });
}

describe('events tail writing beside its work', () => {
  it('into a pipe: every line, in order, exit 0', async () => {
    const { env, writes } = probed();
    const r = await shell('{ "$@"; echo "exit $?" >&2; } | cat', env);
    expect(r.stderr).toBe('exit 0\n');
    expect(r.stdout).toBe(expected);
    expect(writes()).toBeGreaterThan(0);
  });

  it('into a file: every line, in order, exit 0', async () => {
    const file = join(tempConfigDir(), 'events.ndjson');
    const { env, writes } = probed();
    const r = await shell(`"$@" -q > '${file}'; echo "exit $?" >&2`, env);
    expect(r.stderr).toBe('exit 0\n');
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(writes()).toBeGreaterThan(0);
  });

  it("into a socket (a Node parent's pipe): Node's own writes, the same lines", async () => {
    const { env, writes } = probed();
    const r = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
      execFile(process.execPath, [BIN, ...TAIL], { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
        resolve({ stdout, code: error ? (typeof error.code === 'number' ? error.code : 1) : 0 }),
      );
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
    expect(writes()).toBe(0);
  });

  it('into a pipe whose reader goes away: exit 0 and nothing said, as `| head` expects', async () => {
    const r = await shell('{ "$@"; echo "exit $?" >&2; } | head -c 1000', server.env());
    expect(r.stderr).toBe('exit 0\n');
    expect(r.stdout).toBe(expected.slice(0, 1000));
  });

  it.skipIf(skipWithoutMountNamespace)(
    `into a file on a full disk: exit 74, with the line to resume from${needsMountNamespace}`,
    async () => {
      const dir = join(tempConfigDir(), 'full');
      mkdirSync(dir);
      const r = await shell(
        `exec unshare -m --propagation private sh -c 'set -e; ${FULL_TMPFS}; d="$1"; shift; set +e; "$@" > "$d/out"; echo "exit $?" >&2' sh '${dir}' "$@"`,
        server.env(),
      );
      const failure = {
        status: null,
        code: 'output_failed',
        message: 'cannot write to stdout: no space left on device (ENOSPC)',
        hint: `resume with: svcadm --domain ${server.url} -o ndjson events tail --since ${SINCE}`,
        exit_code: 74,
      };
      expect(r.stderr).toBe(`${JSON.stringify({ error: failure })}\nexit 74\n`);
    },
  );
});
