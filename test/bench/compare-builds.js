// Start-up figures of several builds of svcadm in one run, for deciding whether a start-up trick keeps its place
// (docs/decisions/2026-11-25-start-up-tricks.md): build each variant in a copy of the tree, then
//
//   node test/bench/compare-builds.js base=/tmp/a/bin/svcadm.js without-x=/tmp/b/bin/svcadm.js …
//
// Each round runs the floors (`node -e 0`, a bare node:http GET) and every build's `--version` and
// `policies get -o json` (cached token) once, in a new random order. Printed per build: the two figures (ratio of
// medians to their floor, as `npm run bench startup`), and the paired difference to the first build, in wall time
// and in CPU time (user + system of the whole process, read by a preloaded probe that every process gets alike).
// On a shared machine CPU time is the steadier of the two; run it under `nice -n -20` for steadier wall times.
// ROUNDS (default 41) sets the number of rounds.
import './clean-env.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOOR_GET, median, timeProcess } from './startup.js';

const ROUNDS = Number(process.env.ROUNDS || 41);
const builds = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf('=');
  if (at < 1) throw new Error(`expected name=path/to/bin/svcadm.js, got ${arg}`);
  return { name: arg.slice(0, at), bin: arg.slice(at + 1) };
});
if (builds.length === 0) throw new Error('usage: compare-builds.js name=bin/svcadm.js [name=bin/svcadm.js …]');

const work = mkdtempSync(join(tmpdir(), 'svcadm-compare-'));
const probe = join(work, 'cpu.cjs');
const cpuOut = join(work, 'cpu.txt');
writeFileSync(
  probe,
  `process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.CPU_OUT, String((user + system) / 1000));
});
`,
);

async function timed(args, env = {}) {
  writeFileSync(cpuOut, '');
  const { ms } = await timeProcess(args, { ...env, NODE_OPTIONS: `--require ${probe}`, CPU_OUT: cpuOut });
  return { wall: ms, cpu: Number(readFileSync(cpuOut, 'utf8')) };
}

const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.floor((3 * (s.length - 1)) / 4)]];
};

const { startEmulator } = await import('../../dist/emulator/server.js');
const emu = await startEmulator({ port: 0, rateLimit: 0 });
try {
  const id = emu.fixtures.policyIds[0];
  let token = '';
  const envs = new Map();
  for (const { name, bin } of builds) {
    const env = { ...emu.env, SVCADM_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svcadm-compare-')) };
    token = (await timeProcess([bin, 'auth', 'token'], env)).out.trim(); // fills this build's token cache
    envs.set(name, env);
  }
  const target = { URL: `${emu.url}/api/v2/rate-limit-policies/${id}`, TOKEN: token };
  const tasks = new Map([
    ['node -e 0', () => timed(['-e', '0'])],
    ['node:http GET', () => timed(['-e', FLOOR_GET], target)],
  ]);
  for (const { name, bin } of builds) {
    tasks.set(`${name} --version`, () => timed([bin, '--version']));
    tasks.set(`${name} policies get`, () => timed([bin, 'policies', 'get', id, '-o', 'json'], envs.get(name)));
  }
  const times = new Map([...tasks.keys()].map((key) => [key, { wall: [], cpu: [] }]));
  for (const run of tasks.values()) await run(); // warm the file cache
  const load = loadavg()[0];
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...tasks.keys()].sort(() => Math.random() - 0.5);
    for (const key of order) {
      const t = await tasks.get(key)();
      times.get(key).wall.push(t.wall);
      times.get(key).cpu.push(t.cpu);
    }
  }
  console.log(
    `${ROUNDS} rounds, load average ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}, Node ${process.version}`,
  );
  const first = builds[0].name;
  const rows = [];
  for (const [figure, floor] of [
    ['--version', 'node -e 0'],
    ['policies get', 'node:http GET'],
  ]) {
    for (const { name } of builds) {
      const row = { figure, build: name };
      for (const metric of ['wall', 'cpu']) {
        const own = times.get(`${name} ${figure}`)[metric];
        row[`${metric} ms`] = median(own).toFixed(1);
        row[`${metric} ratio`] = (median(own) / median(times.get(floor)[metric])).toFixed(2);
        if (name !== first) {
          const base = times.get(`${first} ${figure}`)[metric];
          const diff = own.map((x, i) => x - base[i]);
          const [q1, q3] = quartiles(diff);
          row[`${metric} vs ${first}`] = `${median(diff).toFixed(1)} [${q1.toFixed(1)}, ${q3.toFixed(1)}]`;
        }
      }
      rows.push(row);
    }
  }
  console.table(rows);
  console.log(
    `floors: node -e 0 ${median(times.get('node -e 0').wall).toFixed(1)} ms, node:http GET ${median(times.get('node:http GET').wall).toFixed(1)} ms (wall)`,
  );
  if (process.env.RAW_OUT) writeFileSync(process.env.RAW_OUT, JSON.stringify(Object.fromEntries(times)));
} finally {
  await emu.close();
}
