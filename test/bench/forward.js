// `events tail --forward-to` and `events replay --forward-to` bench (run after `npm run build`): events/s delivered
// to a local app that answers 204 at once, against the floor measured in the same run (a node:http keep-alive client
// POSTing the same payloads to the same app one at a time, nothing else), and peak RSS of both.
// `node test/bench/forward.js` runs this section alone.
//
// Made to be trusted on a loaded machine: the floor and svcadm run in turns, BENCH_RUNS rounds (the order flipped
// every other round), and the rows give the ratio of the medians with each round's ratio beside it. The app runs in
// a process of its own, and its CPU time per event is checked to be below each client's (else the app, not the
// client, sets the pace and the ratio flatters svcadm). Each run's CPU time and peak RSS come from /usr/bin/time.
import './clean-env.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { token } from './emulator-throughput.js';
import { median } from './startup.js';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', '..', 'bin', 'svcadm.js');
const EVENTS = Number(process.env.BENCH_FORWARD_EVENTS ?? 10_000);
/** The replay's file: the tail's events recorded, repeated to this many lines. */
const REPLAYED = Number(process.env.BENCH_REPLAY_EVENTS ?? 100_000);
const TARGET = 0.85;
const RSS_MB = 80;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TIME = '/usr/bin/time';
const SINCE = '2000-01-01T00:00:00Z';

// The floor: the same bodies POSTed one at a time over one keep-alive connection, nothing else.
const FLOOR = `
const http = require('node:http');
const fs = require('node:fs');
const bodies = fs.readFileSync(process.env.BODIES, 'utf8').split('\\n').filter(Boolean);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let i = 0;
const next = () => {
  if (i === bodies.length) { agent.destroy(); return; }
  const body = bodies[i++];
  const req = http.request(process.env.URL, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume();
    res.on('end', next);
  });
  req.end(body);
};
next();`;

// The app, in a process of its own (the emulator streaming in this one must not slow its answers): 204 at once to
// every POST; GET /count answers the POSTs received and the app's CPU time so far (ms); its first stdout line is its
// port.
const APP = `
const http = require('node:http');
let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') received++;
    res.writeHead(req.method === 'POST' ? 204 : 200);
    if (req.method === 'POST') return res.end();
    const cpu = process.cpuUsage();
    res.end(JSON.stringify({ received, cpuMs: (cpu.user + cpu.system) / 1000 }));
  });
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();`;

async function startApp() {
  const child = spawn(process.execPath, ['-e', APP], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((done, reject) => {
    child.stdout.once('data', (c) => done(Number(String(c).trim())));
    child.once('error', reject);
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/hook`,
    /** POSTs received and the app's CPU time (ms) so far. */
    stats: async () => JSON.parse(await (await fetch(`${origin}/count`)).text()),
    close: () =>
      new Promise((done) => {
        child.once('exit', done);
        child.stdin.end();
      }),
  };
}

const HAS_TIME = existsSync(TIME);

/** Runs node with `args`: wall time (ms), and with /usr/bin/time its CPU time (ms) and peak RSS (MB). */
function timed(args, env, work) {
  return new Promise((done, reject) => {
    const stats = join(work, 'time');
    const command = HAS_TIME ? TIME : process.execPath;
    const argv = HAS_TIME ? ['-f', '%U %S %M', '-o', stats, process.execPath, ...args] : args;
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) return reject(new Error(`exited with ${code}: ${stderr.slice(-500)}`));
      if (!HAS_TIME) return done({ ms });
      const [user, system, rssKb] = readFileSync(stats, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      done({ ms, cpuMs: (user + system) * 1000, rssMb: rssKb / 1024 });
    });
  });
}

/**
 * `rounds` rounds of the floor and svcadm in turns (svcadm first every other round), each run checked to have
 * delivered `count` events; what the app spent meanwhile is counted per run.
 */
async function rounds(app, count, floor, svcadm) {
  const runs = { floor: [], svcadm: [] };
  const one = async (which, go) => {
    const before = await app.stats();
    const here = process.cpuUsage();
    const run = await go();
    const spent = process.cpuUsage(here);
    const after = await app.stats();
    const got = after.received - before.received;
    if (got !== count) throw new Error(`${which}: the app got ${got} of ${count} events`);
    runs[which].push({ ...run, appCpuMs: after.cpuMs - before.cpuMs, benchCpuMs: (spent.user + spent.system) / 1000 });
  };
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      await one('floor', floor);
      await one('svcadm', svcadm);
    } else {
      await one('svcadm', svcadm);
      await one('floor', floor);
    }
  }
  return runs;
}

const fixed = (n, d = 2) => Number(n).toFixed(d);

/** The throughput row, the receiver check and the peak RSS row of one measured pair. */
function rows(what, count, runs) {
  const rate = (ms) => count / (ms / 1000);
  const measured = rate(median(runs.svcadm.map((r) => r.ms)));
  const baseline = rate(median(runs.floor.map((r) => r.ms)));
  const perRound = runs.svcadm.map((r, i) => fixed(runs.floor[i].ms / r.ms)).join(', ');
  const out = [
    {
      name: `${what} vs node:http POSTs one at a time (median of ${RUNS} rounds in turns; each round: ${perRound})`,
      measured,
      baseline,
      ratio: measured / baseline,
      unit: 'events/s',
      // svcadm's own work per event (read the stream, check, sign, print, move the cursor) within 15 % of a round trip.
      target: `>= ${TARGET}x`,
      ok: measured / baseline >= TARGET,
    },
  ];
  if (!HAS_TIME) {
    out.push(`${what}: CPU and peak RSS skipped (${TIME} is missing)`);
    return out;
  }
  // The receiver must be the fastest of the three, else it sets the pace of both.
  const us = (xs) => (median(xs) * 1000) / count;
  const app = us([...runs.floor, ...runs.svcadm].map((r) => r.appCpuMs));
  const floorCpu = us(runs.floor.map((r) => r.cpuMs));
  const svcadmCpu = us(runs.svcadm.map((r) => r.cpuMs));
  // The emulator serving the tail's stream runs in this process: what it spent is on the machine, not in svcadm.
  const source = us(runs.svcadm.map((r) => r.benchCpuMs));
  out.push(
    `${what}: CPU per event (median): the app ${fixed(app, 1)} µs, the floor ${fixed(floorCpu, 1)} µs, svcadm ${fixed(svcadmCpu, 1)} µs, the emulator ${fixed(source, 1)} µs` +
      (app < floorCpu && app < svcadmCpu ? ' (the app is not the bottleneck)' : ' — THE APP IS THE BOTTLENECK'),
  );
  const mb = Math.max(...runs.svcadm.map((r) => r.rssMb));
  out.push({
    name: `${what}: peak RSS (the largest of ${RUNS} runs)`,
    measured: mb,
    baseline: RSS_MB,
    ratio: mb / RSS_MB,
    unit: 'MB',
    target: `< ${RSS_MB} MB`,
    ok: mb < RSS_MB,
  });
  return out;
}

/** Within this of the same tail without traces (issue 41 point 3). */
const TRACES_TARGET = 0.9;

/** A local OTLP/HTTP collector that takes every export and answers 200 (what it is sent is not read here). */
async function startCollector() {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  };
}

/** The rate with traces on (`svcadm` runs) against off (`floor` runs). */
function tracesRow(what, count, runs) {
  const rate = (ms) => count / (ms / 1000);
  const measured = rate(median(runs.svcadm.map((r) => r.ms)));
  const baseline = rate(median(runs.floor.map((r) => r.ms)));
  const perRound = runs.svcadm.map((r, i) => fixed(runs.floor[i].ms / r.ms)).join(', ');
  return {
    name: `${what} (median of ${RUNS} rounds in turns; each round: ${perRound})`,
    measured,
    baseline,
    ratio: measured / baseline,
    unit: 'events/s',
    target: `>= ${TRACES_TARGET}x`,
    ok: measured / baseline >= TRACES_TARGET,
  };
}

export async function run() {
  const emu = await startEmulator({
    events: EVENTS + 1000,
    eventRate: 0,
    rateLimit: 0,
    heartbeatMs: 0,
    streamLifetimeMs: 0,
    maxStreams: 64,
  });
  const app = await startApp();
  const work = mkdtempSync(join(tmpdir(), 'svcadm-bench-forward-'));
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVCADM_DOMAIN: emu.url,
      SVCADM_TOKEN: await token(emu),
      SVCADM_CONFIG_DIR: work,
      SVCADM_FORWARD_SECRET: 'bench-secret-0123456789',
    };
    const tail = [BIN, 'events', 'tail', '--since', SINCE, '--max-events', String(EVENTS), '-o', 'ndjson', '-q'];
    // The floor posts exactly what svcadm delivers: the NDJSON lines of the same events.
    const bodies = join(work, 'bodies.ndjson');
    await new Promise((done, reject) => {
      const child = spawn(process.execPath, tail, { env, stdio: ['ignore', 'pipe', 'inherit'] });
      const chunks = [];
      child.stdout.on('data', (c) => chunks.push(c));
      child.on('error', reject);
      child.on('exit', () => {
        writeFileSync(bodies, Buffer.concat(chunks));
        done();
      });
    });
    const forward = [...tail, '--forward-to', app.url];
    const tailRuns = await rounds(
      app,
      EVENTS,
      () => timed(['-e', FLOOR], { ...env, URL: app.url, BODIES: bodies }, work),
      () => timed(forward, env, work),
    );
    // The replay: the same bodies repeated to REPLAYED lines, from a file, against the floor over the same lines.
    const recorded = join(work, 'recorded.ndjson');
    const lines = readFileSync(bodies);
    writeFileSync(recorded, Buffer.concat(Array.from({ length: Math.ceil(REPLAYED / EVENTS) }, () => lines)));
    const replay = [BIN, 'events', 'replay', recorded, '--forward-to', app.url, '-o', 'ndjson', '-q'];
    const replayedLines = Math.ceil(REPLAYED / EVENTS) * EVENTS;
    const replayRuns = await rounds(
      app,
      replayedLines,
      () => timed(['-e', FLOOR], { ...env, URL: app.url, BODIES: recorded }, work),
      () => timed(replay, env, work),
    );
    // Traces on (issue 41): the same tail exporting to a local OTLP collector, in turns with the tail without.
    const collector = await startCollector();
    let tracedRuns;
    try {
      const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
      tracedRuns = await rounds(
        app,
        EVENTS,
        () => timed(forward, env, work),
        () => timed(forward, traced, work),
      );
    } finally {
      await collector.close();
    }
    const count = (n) => n.toLocaleString('en-US');
    return [
      ...rows(`events tail --forward-to, ${count(EVENTS)} events to an app answering 204 at once`, EVENTS, tailRuns),
      ...rows(`events replay --forward-to, ${count(replayedLines)} recorded events`, replayedLines, replayRuns),
      tracesRow(`events tail --forward-to, ${count(EVENTS)} events, traces on vs off`, EVENTS, tracedRuns),
    ];
  } finally {
    await app.close();
    await emu.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const row of await run()) console.log(typeof row === 'string' ? row : JSON.stringify(row));
}
