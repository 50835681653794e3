import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
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

  it('stops with exit 74 and where to resume when the file cannot be written (a file size limit)', async () => {
    const env = await emulator();
    const path = join(dir(), 'events.ndjson');
    // `ulimit -f 4`: files of at most 4 KB (1024-byte blocks in dash and bash); this one is full already, so the
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
