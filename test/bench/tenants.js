// Many tenants (issue 31): `--profiles '*'` over emulated tenants, each an emulator on its own port. Runs against the
// build: `npm run build` first.
// 1. `policies list --parallel 20` over 20 tenants that each answer after 100 ms, vs the same command against one of
//    them (<= 1.5x); the default --parallel 8 beside it, for the record;
// 2. peak RSS of `users permissions <id> --all -o json` across 20 tenants of 5,000 items each (< 150 MB since issue 38);
// 3. peak RSS of `events tail` merged from 8 tenants (< 100 MB);
// 4. peak RSS of `provisionings list --all` across 8 and 24 tenants of about 21 MB each (22,000 provisionings),
//    `--parallel 1` and `8`, `-o json`, `yaml` and `table`: each < 150 MB, and 24 tenants within 10 % of 8
//    (issue 38 point 1: each finished tenant waits in a temporary file; docs/decisions/2026-11-28-tenant-results-spooled.md).
// Usage: node test/bench/tenants.js   (or import { run } from it)
import './clean-env.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './startup.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.BENCH_BIN ?? join(root, 'bin', 'svcadm.js');
const GNU_TIME = '/usr/bin/time';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SPEED_TARGET = 1.5;
const JSON_MEMORY_BUDGET_MB = 150;
const TAIL_MEMORY_BUDGET_MB = 100;
const TAIL_EVENTS_PER_TENANT = Number(process.env.BENCH_TAIL_EVENTS ?? 20_000);
const SPOOLED_MEMORY_BUDGET_MB = 150;
/** Of the 24-tenant peak over the 8-tenant one. */
const SPOOLED_GROWTH_TARGET = 1.1;
const SPOOLED_ITEMS_PER_TENANT = Number(process.env.BENCH_SPOOLED_ITEMS ?? 22_000);

/** Spawns svcadm; counts stdout lines without keeping them; wall time and the child's peak RSS (GNU time's %M, else the child's own). */
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
      if (code !== 0) reject(new Error(`svcadm ${args.join(' ')} exited ${code}: ${err.slice(-800)}`));
      else resolve({ ms, lines, rssMb: kb / 1024 });
    });
  });
}

/** `count` emulators started with `options`, and a config folder naming each as profile t00, t01, …. */
export async function tenants(startEmulator, count, options) {
  const emus = [];
  try {
    for (let i = 0; i < count; i++) emus.push(await startEmulator({ port: 0, ...options }));
  } catch (err) {
    await Promise.all(emus.map((emu) => emu.close()));
    throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-bench-tenants-'));
  const profiles = Object.fromEntries(
    emus.map((emu, i) => [
      `t${String(i).padStart(2, '0')}`,
      { domain: emu.url, clientId: emu.admin.clientId, clientSecret: emu.admin.clientSecret },
    ]),
  );
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return {
    emus,
    env: { SVCADM_CONFIG_DIR: dir, CI: '1' },
    close: () => Promise.all(emus.map((emu) => emu.close())),
  };
}

/**
 * Whole processes, in rotating order, medians: 20 tenants at once (`--parallel 20`) vs one tenant, each answering after
 * 100 ms; and, for the record, the default `--parallel 8`, which runs 20 tenants in three rounds of 100 ms by design
 * (docs/decisions/2026-11-26-tenants-figures.md).
 */
async function twentyVsOne(startEmulator) {
  const t = await tenants(startEmulator, 20, { latencyMs: 100, rateLimit: 0, eventRate: 0 });
  try {
    const all = () => runSvcadm(['--profiles', '*', '--parallel', '20', 'policies', 'list', '-o', 'json'], t.env);
    const byDefault = () => runSvcadm(['--profiles', '*', 'policies', 'list', '-o', 'json'], t.env);
    const one = () => runSvcadm(['-p', 't00', 'policies', 'list', '-o', 'json'], t.env);
    await all(); // fills every tenant's token cache entry
    await one();
    const runs = [
      { run: all, ms: [] },
      { run: byDefault, ms: [] },
      { run: one, ms: [] },
    ];
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < runs.length; k++) {
        const r = runs[(i + k) % runs.length];
        r.ms.push((await r.run()).ms);
      }
    }
    return { many: median(runs[0].ms), byDefault: median(runs[1].ms), one: median(runs[2].ms) };
  } finally {
    await t.close();
  }
}

/** Peak RSS of `users permissions --all -o json` across 20 tenants of 5,000 permissions each. */
async function permissionsMemory(startEmulator) {
  const t = await tenants(startEmulator, 20, { permissions: 5000, rateLimit: 0, eventRate: 0, pageCap: 100 });
  try {
    const ids = new Set(t.emus.map((emu) => emu.fixtures.bulkUserId));
    if (ids.size !== 1) throw new Error('the tenants do not share the bulk user id (same seed expected)');
    const r = await runSvcadm(['--profiles', '*', 'users', 'permissions', [...ids][0], '--all', '-o', 'json'], t.env);
    if (r.lines < 20 * 5000) throw new Error(`expected at least 100000 lines, got ${r.lines}`);
    return r;
  } finally {
    await t.close();
  }
}

/** Peak RSS of `events tail` merged from 8 tenants, each replaying its history and then live events. */
async function mergedTailMemory(startEmulator) {
  const t = await tenants(startEmulator, 8, { events: TAIL_EVENTS_PER_TENANT, rateLimit: 0, eventRate: 0 });
  try {
    const total = 8 * TAIL_EVENTS_PER_TENANT;
    const r = await runSvcadm(
      [
        '--profiles',
        '*',
        'events',
        'tail',
        '--since',
        '2d',
        '--max-events',
        String(TAIL_EVENTS_PER_TENANT),
        '-o',
        'ndjson',
      ],
      t.env,
    );
    if (r.lines < total) throw new Error(`expected ${total} events, got ${r.lines}`);
    return r;
  } finally {
    await t.close();
  }
}

/**
 * Peak RSS of `provisionings list --all` across 8 and 24 tenants of `SPOOLED_ITEMS_PER_TENANT` provisionings each
 * (about 21 MB of JSON a tenant), in json, yaml and table, with `--parallel 1` and `8`: one row per format and
 * parallelism, the 8-tenant peak its baseline.
 */
async function spooledMemory(startEmulator) {
  const t = await tenants(startEmulator, 24, {
    provisionings: SPOOLED_ITEMS_PER_TENANT,
    rateLimit: 0,
    eventRate: 0,
    pageCap: 100,
  });
  try {
    const rows = [];
    for (const format of ['json', 'yaml', 'table']) {
      for (const parallel of ['1', '8']) {
        const peak = {};
        for (const count of [8, 24]) {
          const pattern = count === 24 ? '*' : 't00,t01,t02,t03,t04,t05,t06,t07';
          const args = ['--profiles', pattern, '--parallel', parallel, 'provisionings', 'list', '--all', '-o', format];
          const r = await runSvcadm(args, t.env);
          if (r.lines < count * SPOOLED_ITEMS_PER_TENANT) {
            throw new Error(
              `${args.join(' ')}: expected at least ${count * SPOOLED_ITEMS_PER_TENANT} lines, got ${r.lines}`,
            );
          }
          peak[count] = r;
        }
        rows.push({ format, parallel, eight: peak[8], all: peak[24] });
      }
    }
    return rows;
  } finally {
    await t.close();
  }
}

export async function run() {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const speed = await twentyVsOne(startEmulator);
  const memory = await permissionsMemory(startEmulator);
  const tail = await mergedTailMemory(startEmulator);
  const spooled = await spooledMemory(startEmulator);
  const ratio = speed.many / speed.one;
  const spooledRows = spooled.map(({ format, parallel, eight, all }) => {
    const growth = all.rssMb / eight.rssMb;
    const worst = Math.max(all.rssMb, eight.rssMb);
    return {
      name: `peak RSS of provisionings list --all -o ${format} --parallel ${parallel}, 24 tenants vs 8, ${SPOOLED_ITEMS_PER_TENANT.toLocaleString('en-US')} items each (${(all.ms / 1000).toFixed(1)} s / ${(eight.ms / 1000).toFixed(1)} s; 8 tenants ${eight.rssMb.toFixed(1)} MB; each < ${SPOOLED_MEMORY_BUDGET_MB} MB)`,
      baseline: eight.rssMb,
      measured: all.rssMb,
      unit: 'MB',
      ratio: growth,
      target: `<= ${SPOOLED_GROWTH_TARGET}x and < ${SPOOLED_MEMORY_BUDGET_MB} MB`,
      ok: growth <= SPOOLED_GROWTH_TARGET && worst < SPOOLED_MEMORY_BUDGET_MB,
    };
  });
  return [
    {
      name: `policies list --profiles '*' --parallel 20 over 20 tenants answering after 100 ms vs one tenant (whole processes, median of ${RUNS})`,
      baseline: speed.one,
      measured: speed.many,
      ratio,
      target: `<= ${SPEED_TARGET}x`,
      ok: ratio <= SPEED_TARGET,
    },
    {
      name: `the same with the default --parallel 8: three rounds of 100 ms (informational)`,
      baseline: speed.one,
      measured: speed.byDefault,
      ratio: speed.byDefault / speed.one,
      target: 'none',
    },
    {
      name: `peak RSS of users permissions --all -o json --profiles '*', 20 tenants x 5,000 items (${(memory.ms / 1000).toFixed(1)} s; ratio = share of ${JSON_MEMORY_BUDGET_MB} MB)`,
      measured: memory.rssMb,
      unit: 'MB',
      ratio: memory.rssMb / JSON_MEMORY_BUDGET_MB,
      target: `< ${JSON_MEMORY_BUDGET_MB} MB`,
      ok: memory.rssMb < JSON_MEMORY_BUDGET_MB,
    },
    {
      name: `peak RSS of events tail --profiles '*' -o ndjson merged from 8 tenants, ${(8 * TAIL_EVENTS_PER_TENANT).toLocaleString('en-US')} events (${(tail.ms / 1000).toFixed(1)} s; ratio = share of ${TAIL_MEMORY_BUDGET_MB} MB)`,
      measured: tail.rssMb,
      unit: 'MB',
      ratio: tail.rssMb / TAIL_MEMORY_BUDGET_MB,
      target: `< ${TAIL_MEMORY_BUDGET_MB} MB`,
      ok: tail.rssMb < TAIL_MEMORY_BUDGET_MB,
    },
    ...spooledRows,
  ];
}

/** Only the rows of issue 38 point 1 (`node test/bench/tenants.js --spooled`). */
async function runSpooled() {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const rows = await spooledMemory(startEmulator);
  return rows.map(({ format, parallel, eight, all }) => ({
    name: `peak RSS of provisionings list --all -o ${format} --parallel ${parallel}, 24 tenants vs 8 (${eight.rssMb.toFixed(1)} MB)`,
    baseline: eight.rssMb,
    measured: all.rssMb,
    unit: 'MB',
    ratio: all.rssMb / eight.rssMb,
    target: `<= ${SPOOLED_GROWTH_TARGET}x and < ${SPOOLED_MEMORY_BUDGET_MB} MB`,
    ok: all.rssMb / eight.rssMb <= SPOOLED_GROWTH_TARGET && Math.max(all.rssMb, eight.rssMb) < SPOOLED_MEMORY_BUDGET_MB,
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await (process.argv.includes('--spooled') ? runSpooled() : run())) {
    const base = r.baseline === undefined ? '' : ` vs ${r.baseline.toFixed(1)} ${r.unit ?? 'ms'}`;
    console.log(
      `${r.name}: ${r.measured.toFixed(1)} ${r.unit ?? 'ms'}${base} = ${r.ratio.toFixed(2)}x (target ${r.target})${r.ok === false ? '  MISSED' : ''}`,
    );
  }
}
