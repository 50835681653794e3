// Compare tenants (issue 40): `svcadm snapshot` and `svcadm diff` over emulated tenants. Runs against the build:
// `npm run build` first.
// 1. `snapshot --profiles '*' --parallel 20` over 20 tenants that each answer after 100 ms, vs the same command
//    against one of them (<= 1.5x);
// 2. `diff` of two tenants of 5,000 rate limit policies each, every one differing (other seeds), -o json: the
//    process's CPU time (user + system) < 1 s and its peak RSS < 150 MB; the same for two alike tenants beside it.
// Usage: node test/bench/compare.js   (or import { run } from it)
import './clean-env.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './startup.js';
import { tenants } from './tenants.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.BENCH_BIN ?? join(root, 'bin', 'svcadm.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SPEED_TARGET = 1.5;
const CPU_TARGET_MS = 1000;
const MEMORY_BUDGET_MB = 150;
const POLICIES = 5000;

/**
 * Spawns svcadm with a wrapper that reports, at exit, its own CPU time and peak RSS (process.resourceUsage); `ok`
 * lists the exit codes expected (diff ends with 10 when the tenants differ).
 */
function runMeasured(args, env, ok = [0]) {
  const wrapper = `process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nUSAGE ' + u.maxRSS + ' ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); }); await import(${JSON.stringify(BIN)});`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--input-type=module', '-e', wrapper, BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const [, rssKb = 'NaN', cpuUs = 'NaN'] = /USAGE (\d+) (\d+)/.exec(err) ?? [];
      if (!ok.includes(code ?? -1)) reject(new Error(`svcadm ${args.join(' ')} exited ${code}: ${err.slice(-800)}`));
      else resolve({ ms, bytes, code, rssMb: Number(rssKb) / 1024, cpuMs: Number(cpuUs) / 1000 });
    });
  });
}

/** Whole processes, in rotating order, medians: 20 tenants at once vs one tenant, each answering after 100 ms. */
async function snapshotTwentyVsOne(startEmulator) {
  const t = await tenants(startEmulator, 20, { latencyMs: 100, rateLimit: 0, eventRate: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-bench-snapshots-'));
  try {
    const all = () =>
      runMeasured(['--profiles', '*', '--parallel', '20', 'snapshot', '--dir', dir, '-o', 'json'], t.env);
    const one = () => runMeasured(['-p', 't00', 'snapshot', '--dir', dir, '-o', 'json'], t.env);
    await all(); // fills every tenant's token cache entry
    await one();
    const runs = [
      { run: all, ms: [], cpu: [] },
      { run: one, ms: [], cpu: [] },
    ];
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < runs.length; k++) {
        const r = runs[(i + k) % runs.length];
        const done = await r.run();
        r.ms.push(done.ms);
        r.cpu.push(done.cpuMs);
      }
    }
    return {
      many: median(runs[0].ms),
      one: median(runs[1].ms),
      manyCpu: median(runs[0].cpu),
      oneCpu: median(runs[1].cpu),
    };
  } finally {
    await t.close();
  }
}

/** Two tenants of POLICIES policies each, with the seeds given; a config folder naming them left and right. */
async function pair(startEmulator, seeds) {
  const emus = [];
  for (const seed of seeds) {
    emus.push(await startEmulator({ port: 0, seed, policies: POLICIES, rateLimit: 0, eventRate: 0, pageCap: 100 }));
  }
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-bench-diff-'));
  const [left, right] = emus.map((emu) => ({
    domain: emu.url,
    clientId: emu.admin.clientId,
    clientSecret: emu.admin.clientSecret,
  }));
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles: { left, right } }), { mode: 0o600 });
  return { env: { SVCADM_CONFIG_DIR: dir, CI: '1' }, close: () => Promise.all(emus.map((emu) => emu.close())) };
}

/** The median CPU time and the worst peak RSS of `diff left right --kind policies -o json`, over RUNS runs. */
async function diffCost(startEmulator, seeds) {
  const p = await pair(startEmulator, seeds);
  try {
    const args = ['diff', 'left', 'right', '--kind', 'policies', '-o', 'json'];
    await runMeasured(args, p.env, [0, 10]); // fills the token cache
    const cpu = [];
    let rss = 0;
    let bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await runMeasured(args, p.env, [0, 10]);
      cpu.push(r.cpuMs);
      rss = Math.max(rss, r.rssMb);
      bytes = r.bytes;
    }
    return { cpuMs: median(cpu), rssMb: rss, bytes };
  } finally {
    await p.close();
  }
}

export async function run() {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const speed = await snapshotTwentyVsOne(startEmulator);
  const only = process.env.BENCH_COMPARE_ONLY;
  const differ = only === 'snapshot' ? undefined : await diffCost(startEmulator, [7, 8]);
  const alike = only === 'snapshot' ? undefined : await diffCost(startEmulator, [7, 7]);
  const ratio = speed.many / speed.one;
  const diffRow = (name, r) => [
    {
      name: `CPU time of diff, two tenants of ${POLICIES.toLocaleString('en-US')} policies, ${name} (-o json, ${(r.bytes / 1024 / 1024).toFixed(1)} MB out; median of ${RUNS}; ratio = share of 1 s)`,
      measured: r.cpuMs,
      ratio: r.cpuMs / CPU_TARGET_MS,
      target: `< ${CPU_TARGET_MS} ms`,
      ok: r.cpuMs < CPU_TARGET_MS,
    },
    {
      name: `peak RSS of the same (worst of ${RUNS}; ratio = share of ${MEMORY_BUDGET_MB} MB)`,
      measured: r.rssMb,
      unit: 'MB',
      ratio: r.rssMb / MEMORY_BUDGET_MB,
      target: `< ${MEMORY_BUDGET_MB} MB`,
      ok: r.rssMb < MEMORY_BUDGET_MB,
    },
  ];
  return [
    {
      name: `snapshot --profiles '*' --parallel 20 over 20 tenants answering after 100 ms vs one tenant (whole processes, median of ${RUNS}; svcadm's CPU ${speed.manyCpu.toFixed(0)} ms vs ${speed.oneCpu.toFixed(0)} ms)`,
      baseline: speed.one,
      measured: speed.many,
      ratio,
      target: `<= ${SPEED_TARGET}x`,
      ok: ratio <= SPEED_TARGET,
    },
    ...(differ ? diffRow('every policy differing', differ) : []),
    ...(alike ? diffRow('alike', alike) : []),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await run()) console.log(JSON.stringify(row));
  process.exit(0);
}
