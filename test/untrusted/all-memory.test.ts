import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ALL_HELD_MAX_BYTES, ALL_HELD_MAX_ITEMS } from '../../src/io/printer.js';
import { type Behaviour, hostileServerPerTest } from '../helpers/hostile-server.js';
import { requireProgram } from '../helpers/requires.js';
import { BIN, runCli } from '../helpers/run-cli.js';

// `--all` in a complete-or-nothing format (json, yaml; a table, --query) holds the list until its last page: against
// a list that never ends, it stops at ALL_HELD_MAX_ITEMS or ALL_HELD_MAX_BYTES (docs/decisions/2026-11-25-all-held-bound.md),
// exit 7, nothing on stdout, and the process stays under 150 MB (its peak RSS read by GNU time).

const hostile = hostileServerPerTest();
const gnuTime = requireProgram('time');

/** A list that never ends: `perPage` new items on every page, each `bytes` long, and a new checkpoint each time. */
function endlessList(perPage: number, bytes: number): Behaviour {
  let page = 0;
  return (_req, res) => {
    page++;
    const items = Array.from({ length: perPage }, (_, k) => ({
      connection_id: `con_${page}_${k}`,
      pad: 'x'.repeat(Math.max(0, bytes - 40)),
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ directory_provisionings: items, next: `cp-${page}` }));
  };
}

const MESSAGE = `the list is longer than svcadm holds to print it whole (${ALL_HELD_MAX_ITEMS.toLocaleString('en-US')} items or ${ALL_HELD_MAX_BYTES / 1024 / 1024} MB)`;
const HINT = '-o ndjson prints a list of any length as it comes';
/** The error line: as a sentence for a table, as the JSON envelope when data was asked for. */
const tooLong = (asData: boolean) =>
  asData
    ? `${JSON.stringify({ error: { status: null, code: 'list_too_long', message: MESSAGE, hint: HINT, exit_code: 7 } })}\n`
    : `svcadm: ${MESSAGE} — ${HINT}\n`;

describe('--all against a list that never ends', () => {
  it.each([
    ['-o json', ['-o', 'json']],
    ['-o yaml', ['-o', 'yaml']],
    ['as a table', []],
    ['-o json --query', ['-o', 'json', '--query', '[].connection_id']],
  ])('%s: stops at the item bound, exit 7, nothing on stdout', async (format, args) => {
    const server = await hostile({ api: endlessList(1000, 60) });
    const r = await runCli(['provisionings', 'list', '--all', ...args], { env: server.env() });
    expect(r.stdout).toBe('');
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(`incomplete: printed 0, more existed\n${tooLong(format !== 'as a table')}`);
    // Every page up to the bound, and the one past it.
    expect(server.apiRequests()).toHaveLength(ALL_HELD_MAX_ITEMS / 1000 + 1);
  });

  it.skipIf(gnuTime.missing).each([
    ['-o json', ['-o', 'json']],
    ['-o yaml', ['-o', 'yaml']],
    ['as a table', []],
  ])(gnuTime.title('%s, of 1 MB pages: stops at the byte bound under 150 MB of RSS'), async (format, args) => {
    const server = await hostile({ api: endlessList(100, 10_000) });
    const r = await peakRss(['provisionings', 'list', '--all', ...args], server.env());
    expect(r.stdout).toBe('');
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(`incomplete: printed 0, more existed\n${tooLong(format !== 'as a table')}`);
    if (process.env.SVCADM_SHOW_RSS) process.stderr.write(`${format}: ${r.rssMb.toFixed(1)} MB\n`);
    expect(r.rssMb).toBeLessThan(150);
  });
});

/** Runs the built binary under GNU time (killed after 60 s): exit code, stdout, stderr, and its peak RSS in MB. */
function peakRss(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; rssMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS_KB %M', process.execPath, BIN, ...argv], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      if (stdout.length < 10_000) stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      const kb = Number(/MAXRSS_KB (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
      // GNU time's own lines (the figure, and a word on a non-zero exit) are not svcadm's.
      const own = stderr.replace(/MAXRSS_KB \d+\n?/, '').replace(/Command exited with non-zero status \d+\n/, '');
      resolve({ code, stdout, stderr: own, rssMb: kb / 1024 });
    });
  });
}
