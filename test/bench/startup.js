// Start-up and one-shot request cost of svcadm against floors measured in the same run.
import './clean-env.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_VERSION } from '../../scripts/release/node-version.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.BENCH_BIN || join(root, 'bin', 'svcadm.js');

export function timeProcess(args, env = {}) {
  return timeProgram(process.execPath, args, env);
}

/** `program args…` run once: its wall time and its stdout (rejects on a non-zero exit). */
export function timeProgram(program, args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      else resolve({ ms, out });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Runs a and b alternately `pairs` times (order flipped every other pair) and returns both medians. */
export async function pairwise(pairs, a, b) {
  const ta = [];
  const tb = [];
  await a();
  await b(); // warm the file cache
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      ta.push((await a()).ms);
      tb.push((await b()).ms);
    } else {
      tb.push((await b()).ms);
      ta.push((await a()).ms);
    }
  }
  return { a: median(ta), b: median(tb) };
}

export const FLOOR_GET = `
const http = require('node:http');
http.get(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } }, (res) => {
  let body = ''; res.on('data', (c) => { body += c; }); res.on('end', () => process.stdout.write(body));
});`;

// The same GET with undici, for the design note that chose node:http (not a target: evidence for the choice).
const UNDICI_GET = `
const { request } = require(process.env.UNDICI);
request(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } })
  .then((res) => res.body.text())
  .then((body) => process.stdout.write(body));`;

/**
 * Runs each of `fns` once per round, `rounds` times, in an order that turns every round (so that a change in the
 * machine's load touches all alike), after one warm-up each: the median of each.
 */
export async function interleaved(rounds, fns) {
  const times = fns.map(() => []);
  for (const fn of fns) await fn();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < fns.length; k++) {
      const at = (round + k) % fns.length;
      times[at].push((await fns[at]()).ms);
    }
  }
  return times.map(median);
}

/**
 * main's build, to hold each start-up row to it in the same run (docs/decisions/2026-11-28-start-up-rows-measured-clean.md):
 * `BENCH_MAIN_BIN=/path/to/a/checkout/of/main/bin/svcadm.js`, a checkout built with `npm ci && npm run build`.
 */
const MAIN_BIN = process.env.BENCH_MAIN_BIN;
/** A row is no worse than main's when its ratio is within this of main's in the same run (the rounds' noise). */
const NOISE = 1.05;
/** Without main's build beside it: main's clean figures (the decision record), as the bound. */
const MAIN_CLEAN = { version: 1.5, get: 2.3 };

/** A start-up row: this build's ratio to its floor, held to main's ratio in the same run, when main's build is given. */
function startupRow(name, floor, mine, main, recorded) {
  const ratio = mine / floor;
  const bound = main === undefined ? recorded : (main / floor) * NOISE;
  const against =
    main === undefined
      ? `<= ${recorded.toFixed(1)}x (main's clean figure; set BENCH_MAIN_BIN to measure it beside)`
      : `<= main's ${(main / floor).toFixed(2)}x in this run (+${Math.round((NOISE - 1) * 100)}%)`;
  return { name, baseline: floor, measured: mine, ratio, target: against, ok: ratio <= bound };
}

/**
 * The single executable (`BENCH_EXECUTABLE`, else release/svcadm-<version>-linux-x64 where `npm run release` left it)
 * and the pinned Node 26 it is built from (release/.cache/, as scripts/release/executable.js fetched it).
 */
function executableAndNode26() {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const executable =
    process.env.BENCH_EXECUTABLE || join(root, 'release', `svcadm-${version}-${process.platform}-${process.arch}`);
  const node26 = join(root, 'release', '.cache', `node-${NODE_VERSION}`, 'node_modules', 'node', 'bin', 'node');
  return existsSync(executable) && existsSync(node26) ? { executable, node26 } : undefined;
}

/** The executable's target against Node 26's `node -e 0` (issue 39). */
const EXECUTABLE_VERSION_TARGET = 1.1;

/**
 * The executable's rows, in the same run as the rest: `--version` against Node 26's `node -e 0`, and `policies get
 * -o json` with a cached token against the npm package run by the same Node 26 (bin/svcadm.js, its compile cache
 * on). "No slower" is held with the rows' noise (+5%) and said as such.
 */
async function executableRows(pairs, env, id) {
  const found = executableAndNode26();
  if (found === undefined) {
    return ['the executable: not measured (run npm run release, or set BENCH_EXECUTABLE to an executable)'];
  }
  const { executable, node26 } = found;
  const [node0, version] = await interleaved(pairs, [
    () => timeProgram(node26, ['-e', '0']),
    () => timeProgram(executable, ['--version']),
  ]);
  const [npm26, exe] = await interleaved(pairs, [
    () => timeProgram(node26, [BIN, 'policies', 'get', id, '-o', 'json'], env),
    () => timeProgram(executable, ['policies', 'get', id, '-o', 'json'], env),
  ]);
  return [
    {
      name: `the executable's --version vs Node ${NODE_VERSION}'s node -e 0`,
      baseline: node0,
      measured: version,
      ratio: version / node0,
      target: `<= ${EXECUTABLE_VERSION_TARGET}x`,
      ok: version / node0 <= EXECUTABLE_VERSION_TARGET,
    },
    {
      name: `policies get -o json (cached token): the executable vs Node ${NODE_VERSION} running bin/svcadm.js`,
      baseline: npm26,
      measured: exe,
      ratio: exe / npm26,
      target: `<= 1.00x, no slower (held at ${NOISE.toFixed(2)}x, the rows' noise)`,
      ok: exe / npm26 <= NOISE,
    },
  ];
}

export async function run({ pairs = 11 } = {}) {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const emu = await startEmulator({ port: 0, rateLimit: 0 });
  try {
    const env = { ...emu.env, SVCADM_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svcadm-bench-')) };
    const token = (await timeProcess([BIN, 'auth', 'token'], env)).out.trim(); // fills the token cache
    const id = emu.fixtures.policyIds[0];
    const builds = MAIN_BIN === undefined ? [BIN] : [BIN, MAIN_BIN];
    const [floorVersion, ...versions] = await interleaved(pairs, [
      () => timeProcess(['-e', '0']),
      ...builds.map((bin) => () => timeProcess([bin, '--version'])),
    ]);
    const target = { URL: `${emu.url}/api/v2/rate-limit-policies/${id}`, TOKEN: token };
    const [floorGet, ...gets] = await interleaved(pairs, [
      () => timeProcess(['-e', FLOOR_GET], target),
      ...builds.map((bin) => () => timeProcess([bin, 'policies', 'get', id, '-o', 'json'], env)),
    ]);
    // Node >= 22.8: the launcher keeps a compile cache in svcadm's cache folder; the same run without it, for the record.
    const cache =
      typeof (await import('node:module')).enableCompileCache === 'function'
        ? await pairwise(
            pairs,
            () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }),
            () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], env),
          )
        : undefined;
    const undici = await pairwise(
      pairs,
      () => timeProcess(['-e', FLOOR_GET], target),
      () => timeProcess(['-e', UNDICI_GET], { ...target, UNDICI: createRequire(import.meta.url).resolve('undici') }),
    );
    // Traces on (issue 41): the same read exporting to a local OTLP collector, against it with traces off.
    const { createServer } = await import('node:http');
    const collector = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise((done) => collector.listen(0, '127.0.0.1', done));
    const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.address().port}` };
    const traces = await pairwise(
      pairs,
      () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], env),
      () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], traced),
    ).finally(() => {
      collector.closeAllConnections();
      collector.close();
    });
    const executable = await executableRows(pairs, env, id);
    return [
      ...executable,
      startupRow('svcadm --version vs node -e 0', floorVersion, versions[0], versions[1], MAIN_CLEAN.version),
      startupRow('policies get -o json (cached token) vs node:http GET', floorGet, gets[0], gets[1], MAIN_CLEAN.get),
      ...(MAIN_BIN === undefined
        ? []
        : [
            `for the record: main's build: --version ${(versions[1] / floorVersion).toFixed(2)}x, policies get ${(gets[1] / floorGet).toFixed(2)}x`,
          ]),
      ...(cache
        ? [
            {
              name: `for the record: policies get with the compile cache vs without (Node ${process.versions.node})`,
              baseline: cache.a,
              measured: cache.b,
              ratio: cache.b / cache.a,
              target: 'none',
            },
          ]
        : []),
      {
        name: 'for the record: policies get with traces on (a local OTLP collector) vs off',
        baseline: traces.a,
        measured: traces.b,
        ratio: traces.b / traces.a,
        target: 'none',
      },
      {
        name: 'for the record: one GET with undici vs node:http (why the HTTP layer is node:http)',
        baseline: undici.a,
        measured: undici.b,
        ratio: undici.b / undici.a,
        target: 'none',
      },
    ];
  } finally {
    await emu.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run()) {
    if (typeof r === 'string') {
      console.log(r);
      continue;
    }
    console.log(
      `${r.name}: ${r.measured.toFixed(1)} ms vs ${r.baseline.toFixed(1)} ms = ${r.ratio.toFixed(2)}x (target ${r.target})`,
    );
  }
}
