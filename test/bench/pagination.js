// Pagination: `users permissions --all` with concurrent pages vs the same pages one after another, and the peak
// memory of a 50,000-item listing in NDJSON (streamed) and in JSON (held until complete: complete or nothing). Runs against the build: `npm run build` first.
// Usage: node test/bench/pagination.js   (or import { run } from it)
import './clean-env.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './startup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(root, 'bin', 'svcadm.js');
const GNU_TIME = '/usr/bin/time';
const MEMORY_BUDGET_MB = 120;
/** `-o json --all` keeps the document's text until the last page is in (issue 16: under 150 MB for 50,000 items). */
const JSON_MEMORY_BUDGET_MB = 150;

/**
 * Spawns svcadm, counts stdout lines without keeping them, and reports wall time and the child's peak RSS:
 * from GNU time's %M when present, else from process.resourceUsage() in a wrapper around the launcher.
 */
function runSvcadm(args, env) {
  const viaTime = existsSync(GNU_TIME);
  const wrapper = `process.on('exit', () => process.stderr.write('\\nMAXRSS_KB ' + process.resourceUsage().maxRSS + '\\n')); process.argv.splice(1, 1); await import(${JSON.stringify(BIN)});`;
  const [command, argv] = viaTime
    ? [GNU_TIME, ['-f', 'MAXRSS_KB %M', process.execPath, BIN, ...args]]
    : [process.execPath, ['--input-type=module', '-e', wrapper, BIN, ...args]];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (chunk) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const kb = Number(/MAXRSS_KB (\d+)/.exec(err)?.[1] ?? Number.NaN);
      if (code !== 0) reject(new Error(`svcadm ${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ ms, lines, rssMb: kb / 1024 });
    });
  });
}

function envFor(emu) {
  return { ...emu.env, SVCADM_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svcadm-bench-')), CI: '1' };
}

/** Whole processes, alternating, medians: the concurrent default against `--concurrency 1`. */
async function concurrentVsSequential(startEmulator, pairs) {
  // rateLimit 0: this measures concurrency, not the tenant's budget (a drained bucket would make it sequential).
  // pageCap 100 (a private-cloud tenant): the same 50 pages as the figures measured before the cap existed.
  const emu = await startEmulator({
    port: 0,
    permissions: 5000,
    latencyMs: 20,
    rateLimit: 0,
    eventRate: 0,
    pageCap: 100,
  });
  try {
    const env = envFor(emu);
    const args = ['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'ndjson'];
    const concurrent = () => runSvcadm(args, env);
    const sequential = () => runSvcadm([...args, '--concurrency', '1'], env);
    const warm = await concurrent(); // fills the token cache and the file cache
    if (warm.lines !== 5000) throw new Error(`expected 5000 permissions, got ${warm.lines}`);
    const tc = [];
    const ts = [];
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? [concurrent, sequential] : [sequential, concurrent];
      for (const f of order) {
        const r = await f();
        if (r.lines !== 5000) throw new Error(`expected 5000 permissions, got ${r.lines}`);
        (f === concurrent ? tc : ts).push(r.ms);
      }
    }
    return { concurrent: median(tc), sequential: median(ts) };
  } finally {
    await emu.close();
  }
}

/** Peak RSS of `--all` over 50,000 permissions in `format` (ndjson: a line each; json: one pretty array). */
export async function peakMemory(startEmulator, format = 'ndjson') {
  const emu = await startEmulator({ port: 0, permissions: 50_000, rateLimit: 0, eventRate: 0, pageCap: 100 });
  try {
    const env = envFor(emu);
    const r = await runSvcadm(['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', format], env);
    // A pretty array takes several lines per permission: at least one each, and no fewer in all.
    const short = format === 'ndjson' ? r.lines !== 50_000 : r.lines < 50_000;
    if (short) throw new Error(`expected 50000 permissions in ${format}, got ${r.lines} lines`);
    return r;
  } finally {
    await emu.close();
  }
}

export async function run({ pairs = 5 } = {}) {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const speed = await concurrentVsSequential(startEmulator, pairs);
  const memory = await peakMemory(startEmulator);
  const held = await peakMemory(startEmulator, 'json');
  const ratio = speed.sequential / speed.concurrent;
  return [
    {
      name: 'users permissions --all -o ndjson, 5,000 items, 20 ms latency: the default concurrency vs sequential pages (whole processes)',
      baseline: speed.sequential,
      measured: speed.concurrent,
      ratio,
      target: '>= 2.5x faster',
      ok: ratio >= 2.5,
    },
    {
      name: `peak RSS of users permissions --all -o ndjson, 50,000 items (${(memory.ms / 1000).toFixed(1)} s; ratio = share of ${MEMORY_BUDGET_MB} MB)`,
      measured: memory.rssMb,
      unit: 'MB',
      ratio: memory.rssMb / MEMORY_BUDGET_MB,
      target: `< ${MEMORY_BUDGET_MB} MB`,
      ok: memory.rssMb < MEMORY_BUDGET_MB,
    },
    {
      name: `peak RSS of users permissions --all -o json, 50,000 items, held until complete (${(held.ms / 1000).toFixed(1)} s; ratio = share of ${JSON_MEMORY_BUDGET_MB} MB)`,
      measured: held.rssMb,
      unit: 'MB',
      ratio: held.rssMb / JSON_MEMORY_BUDGET_MB,
      target: `< ${JSON_MEMORY_BUDGET_MB} MB`,
      ok: held.rssMb < JSON_MEMORY_BUDGET_MB,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run()) {
    const base = r.baseline === undefined ? '' : ` vs ${r.baseline.toFixed(1)} ms`;
    console.log(
      `${r.name}: ${r.measured.toFixed(1)} ${r.unit ?? 'ms'}${base} = ${r.ratio.toFixed(2)}x (target ${r.target})${r.ok ? '' : '  MISSED'}`,
    );
  }
}
