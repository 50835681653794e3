import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { hostileServerPerTest, sseMessage } from '../helpers/hostile-server.js';
import { needsMountNamespace, runInMountNamespace, skipWithoutMountNamespace } from '../helpers/mount-namespace.js';
import { BIN, runCli } from '../helpers/run-cli.js';

// `events tail --output-file`: each event's NDJSON line appended to a file while the lines (or the live view) show
// it; the file rules of every file svcadm writes; a write that fails stops the tail with exit 74 and the resume line.

const startEmulator = emulatorPerTest();
/** The running test's emulator. */
let emu: TestEmulator | undefined;

async function emulator(): Promise<Record<string, string>> {
  emu = await startEmulator({ events: 50, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
  return emulatorEnv(emu);
}

const dir = () => mkdtempSync(join(tmpdir(), 'svcadm-record-'));
const hostile = hostileServerPerTest();

/** Runs svcadm under `ulimit -f <blocks>` (a file size limit: a write past it is short, the next one fails: EFBIG). */
function runUnderFileLimit(blocks: number, argv: string[], env: Record<string, string>) {
  const words = argv.map((a) => `'${a}'`).join(' ');
  const command = `ulimit -f ${blocks}; exec "${process.execPath}" "${BIN}" ${words}`;
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn('sh', ['-c', command], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('events tail --output-file', () => {
  it('appends the same NDJSON lines -o ndjson prints, after what the file held, while the lines show them', async () => {
    const env = await emulator();
    const path = join(dir(), 'events.ndjson');
    writeFileSync(path, 'kept\n');
    const data = await runCli(['events', 'tail', '--since', '7d', '--max-events', '50', '-o', 'ndjson'], { env });
    const shown = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '50', '-o', 'wide', '--output-file', path],
      { env },
    );
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n').filter((line) => / evt_/.test(line))).toHaveLength(50);
    expect(readFileSync(path, 'utf8')).toBe(`kept\n${data.stdout}`);
  });

  it.each([
    ['a folder', (p: string) => mkdirSync(p), 'it is a folder'],
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), 'it is not a regular file'],
    ['a symbolic link', (p: string) => symlinkSync('/dev/null', p), 'it is a symbolic link'],
  ])('refuses %s with exit 2 before sending anything', async (_name, make, why) => {
    const env = await emulator();
    const path = join(dir(), 'record');
    make(path);
    await emu?.clearRequests();
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '1', '--output-file', path], { env });
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 2,
      stderr: `svcadm: refusing to write the output file ${path} ${why}\n`.replace(` ${why}`, `: ${why}`),
      stdout: '',
    });
    expect((await emu?.requests())?.requests).toEqual([]);
  });

  it('cuts a write the disk took only part of back to the last whole line before it, and says so', async () => {
    const env = await emulator();
    const path = join(dir(), 'events.ndjson');
    // 2,000 bytes under `ulimit -f 4` (4 blocks of 512 bytes in dash: 2,048): the first event's line (longer than
    // 48 bytes) is written in part.
    const before = `${'x'.repeat(1999)}\n`;
    writeFileSync(path, before);
    const r = await runUnderFileLimit(
      4,
      ['events', 'tail', '--since', '7d', '--max-events', '50', '--output-file', path],
      env,
    );
    expect(r.code).toBe(74);
    expect(r.stdout).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(r.stderr.split('\n').slice(2)).toEqual([
      `svcadm: cannot write to the output file ${path}: the file is too large (EFBIG) — cut back to its last whole line (48 bytes of the failed write removed)`,
      '',
    ]);
  });

  it.skipIf(skipWithoutMountNamespace)(
    `never pads with NUL bytes a file someone else truncated (copytruncate) when the disk is then full${needsMountNamespace}`,
    async () => {
      const mount = dir();
      const go = join(dir(), 'go');
      const path = join(mount, 'events.ndjson');
      const line = (n: number) => sseMessage(`c${n}`, 'user.created', `{"offset":"c${n}","n":${n}}`);
      const server = await hostile({
        api: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(line(1));
          // The rest once logrotate has had its way: the file truncated, then the disk filled.
          const wait = setInterval(() => {
            if (!existsSync(go)) return;
            clearInterval(wait);
            res.write(line(2) + line(3));
          }, 10);
          res.on('close', () => clearInterval(wait));
        },
      });
      const rotate = `( until [ -s "$1/events.ndjson" ]; do sleep 0.01; done; truncate -s 0 "$1/events.ndjson"; dd if=/dev/zero of="$1/.fill" bs=4096 2>/dev/null || true; : > '${go}' ) & :`;
      const r = await runInMountNamespace(
        mount,
        `mount -t tmpfs -o size=16k,mode=0700 tmpfs "$1"; ${rotate}`,
        ['events', 'tail', '--since', '1h', '-o', 'ndjson', '--max-events', '3', '--output-file', path],
        server.env(),
        `{ wc -c < "$d/events.ndjson"; tr -cd '\\000' < "$d/events.ndjson" | wc -c; }`,
      );
      expect(r.stdout).toBe('{"type":"user.created","offset":"c1","n":1}\n');
      expect(r.stderr.split('\n').slice(2)).toEqual([
        JSON.stringify({
          error: {
            status: null,
            code: 'output_failed',
            message: `cannot write to the output file ${path}: no space left on device (ENOSPC)`,
            exit_code: 74,
          },
        }),
        '--after--',
        '0',
        '0',
        '',
      ]);
      expect(r.code).toBe(74);
    },
  );

  it('stops with exit 74 and where to resume when the file cannot be written (a file size limit)', async () => {
    const env = await emulator();
    const path = join(dir(), 'events.ndjson');
    // `ulimit -f 4`: files of at most 2 KB in dash (512-byte blocks; 4 KB in bash); this one is past it already, so the
    // first append fails with EFBIG.
    const full = `${'x'.repeat(4095)}\n`;
    writeFileSync(path, full);
    const command = `ulimit -f 4; exec "${process.execPath}" "${BIN}" events tail --since 7d --max-events 50 -o wide --output-file "${path}"`;
    const result = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn('sh', ['-c', command], { env: { PATH: process.env.PATH, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
      });
      child.on('exit', (code) => resolve({ code, stderr, stdout }));
    });
    expect(result.code).toBe(74);
    // Nothing shown that was not recorded, and nothing of a half-written line left in the file.
    expect(result.stdout).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(full);
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('svcadm: stopped after 0 events');
    expect(lines[1]).toMatch(
      new RegExp(
        `^resume with: svcadm --domain http://127\\.0\\.0\\.1:\\d+ -o wide events tail --since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ --output-file ${path}$`,
      ),
    );
    expect(lines.slice(2)).toEqual([
      `svcadm: cannot write to the output file ${path}: the file is too large (EFBIG)`,
      '',
    ]);
  });
});
