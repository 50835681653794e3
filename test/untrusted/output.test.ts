import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, emulatorPerTest } from '../helpers/emulator.js';
import { answerJson, hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { BIN, runCli, tempConfigDir } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();
const emulator = emulatorPerTest();

const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the binary with stdout and/or stderr on /dev/full (a disk that is always full); the other streams are
 * captured. `closeStderr` closes the reading end of stderr's pipe at once (a reader that went away).
 */
function runWith(
  args: string[],
  env: Record<string, string>,
  opts: { stdout?: 'full'; stderr?: 'full' | 'closed'; stdin?: string } = {},
): Promise<Ran> {
  const full = opts.stdout === 'full' || opts.stderr === 'full' ? openSync('/dev/full', 'w') : undefined;
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['pipe', opts.stdout === 'full' ? full : 'pipe', opts.stderr === 'full' ? full : 'pipe'],
  });
  if (full !== undefined) closeSync(full);
  child.stdin?.end(opts.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  if (opts.stderr === 'closed') child.stderr?.destroy();
  else {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
  }
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('output that cannot be written', () => {
  it('a full disk under stdout is one line and exit 74, never "a bug"', async () => {
    const server = await hostile({ api: policy });
    const r = await runWith(['policies', 'get', 'rlp_1'], server.env(), { stdout: 'full' });
    expect(r).toEqual({
      code: 74,
      stdout: '',
      stderr: 'svcadm: cannot write to stdout: no space left on device (ENOSPC)\n',
    });
  });

  it('a full disk under a streaming command stops it with the same line', async () => {
    const server = await hostile({
      api: sse([sseMessage('c1', 'user.created', '{"offset":"c1"}')], { keepOpen: true }),
    });
    const env = server.env();
    const r = await runWith(['events', 'tail'], env, { stdout: 'full' });
    // Nothing was written, so the resume line starts where this run did (a time: the run's start, to the second).
    expect({
      ...r,
      stderr: r.stderr.replace(/--since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/, '--since <start>\n'),
    }).toEqual({
      code: 74,
      stdout: '',
      stderr: `svcadm: cannot write to stdout: no space left on device (ENOSPC) — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --since <start>\n`,
    });
  });

  it.each([
    ['full', 'a full disk'],
    ['closed', 'a reader that went away'],
  ] as const)('stderr on %s (%s) is exit 74, and the command still did its work', async (how, _what) => {
    const server = await hostile();
    const dir = tempConfigDir();
    const r = await runWith(
      ['profiles', 'add', 'p1', '--domain', server.url, '--client-id', 'c', '--client-secret-stdin', '--no-verify'],
      { SVCADM_CONFIG_DIR: dir },
      { stderr: how, stdin: 'a-long-secret\n' },
    );
    expect(r.code).toBe(74);
    expect(r.stdout).toBe('');
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles)).toEqual(['p1']);
  });

  it('after a DELETE that went through, its result still reaches stderr when stdout cannot take it', async () => {
    const server = await hostile({ api: (_req, res) => res.writeHead(204).end() });
    const r = await runWith(
      [
        'connections',
        'delete-user',
        'con_1',
        '--email',
        'bob@example.com',
        '--yes',
        '--correlation-id',
        'corr-1',
        '-o',
        'json',
      ],
      server.env(),
      { stdout: 'full' },
    );
    expect(r.code).toBe(74);
    expect(server.apiRequests().map((q) => q.method)).toEqual(['DELETE']);
    const [aside, last] = r.stderr.trimEnd().split('\n');
    expect(aside).toBe('{"correlation_id":"corr-1"}');
    const envelope = JSON.parse(last ?? '') as { error: { message: string; hint: string; exit_code: number } };
    expect(envelope.error.message).toBe('cannot write to stdout: no space left on device (ENOSPC)');
    expect(envelope.error.exit_code).toBe(74);
    const [said, result] = envelope.error.hint.split(/: (.*)/s);
    expect(said).toBe('the request went through');
    expect(JSON.parse(result ?? '')).toMatchObject({
      connection_id: 'con_1',
      email: 'bob@example.com',
      correlation_id: 'corr-1',
    });
    const table = await runWith(
      [
        'connections',
        'delete-user',
        'con_1',
        '--email',
        'bob@example.com',
        '--yes',
        '--correlation-id',
        'corr-2',
        '-o',
        'table',
      ],
      server.env(),
      { stdout: 'full' },
    );
    expect(table.code).toBe(74);
    expect(table.stderr).toMatch(
      /^Correlation id: corr-2\nsvcadm: cannot write to stdout: no space left on device \(ENOSPC\) — the request went through: .*bob@example\.com.*con_1.*\n$/,
    );
  });
});

describe('a cursor file that cannot be written', () => {
  it.each([
    ['in a folder that does not exist', (dir: string) => join(dir, 'missing', 'cursor'), 'ENOENT'],
    [
      'that is a folder',
      (dir: string) => {
        mkdirSync(join(dir, 'cursor'));
        return join(dir, 'cursor');
      },
      'it is a folder, not a regular file',
    ],
  ])('%s is found before streaming: exit 2, nothing sent', async (_what, place, code) => {
    const server = await hostile({ api: sse(sseMessage('c1', 'user.created', '{"offset":"c1"}')) });
    const env = server.env();
    const file = place(env.SVCADM_CONFIG_DIR ?? '');
    // --since: the file is not read, so only the check before streaming can find it unwritable.
    const r = await runCli(['events', 'tail', '--since', '1h', '--cursor-file', file], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^svcadm: (cannot|refusing to) write the cursor file ${file}: ${code}\\b.*\\n$`),
    );
    expect(server.requests).toEqual([]);
  });
});

describe('SIGHUP', () => {
  it('stops a tail as cleanly as SIGTERM: exit 129, the resume line, the cursor file flushed', async () => {
    const emu = await emulator({ events: 100, eventRate: 400, heartbeatMs: 0, streamRetryMs: 5 });
    const env = emulatorEnv(emu);
    const file = join(env.SVCADM_CONFIG_DIR, 'cursor');
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--cursor-file', file], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      if (!child.killed && stdout.split('\n').length > 150) child.kill('SIGHUP');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(129);
    const printed = stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { offset: string }).offset);
    const last = printed[printed.length - 1];
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(`${last}\n`);
    expect(stderr).toBe(
      `svcadm: hung up after ${printed.length} events\nresume with: svcadm --domain ${emu.url} events tail --from ${last} --cursor-file ${file}\n`,
    );
  });
});
