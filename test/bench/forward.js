// `events tail --forward-to` and `events replay --forward-to` bench (run after `npm run build`): events/s delivered
// to a local app that answers 204 at once, against the floor measured in the same run (a node:http keep-alive client
// POSTing the same payloads to the same app one at a time, nothing else), and peak RSS of both.
// `node test/bench/forward.js` runs this section alone.
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
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
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
// every POST, the count to GET /count; its first stdout line is its port.
const APP = `
const http = require('node:http');
let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') received++;
    res.writeHead(req.method === 'POST' ? 204 : 200);
    res.end(req.method === 'POST' ? undefined : String(received));
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
    received: async () => Number(await (await fetch(`${origin}/count`)).text()),
    close: () =>
      new Promise((done) => {
        child.once('exit', done);
        child.stdin.end();
      }),
  };
}

function timed(args, env, rssFile) {
  return new Promise((done, reject) => {
    const command = rssFile ? TIME : process.execPath;
    const argv = rssFile ? ['-f', '%M', '-o', rssFile, process.execPath, ...args] : args;
    const started = process.hrtime.bigint();
    const child = spawn(command, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`exited with ${code}: ${stderr.slice(-500)}`));
      else done(ms);
    });
  });
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
    const floorMs = [];
    const forwardMs = [];
    for (let i = 0; i < RUNS; i++) {
      floorMs.push(await timed(['-e', FLOOR], { ...env, URL: app.url, BODIES: bodies }));
      const before = await app.received();
      forwardMs.push(await timed(forward, env));
      const got = (await app.received()) - before;
      if (got !== EVENTS) throw new Error(`the app got ${got} events`);
    }
    const measured = EVENTS / (median(forwardMs) / 1000);
    const baseline = EVENTS / (median(floorMs) / 1000);
    const rows = [
      {
        name: `events tail --forward-to, ${EVENTS.toLocaleString('en-US')} events to an app answering 204 at once vs node:http POSTs one at a time`,
        measured,
        baseline,
        ratio: measured / baseline,
        unit: 'events/s',
        // svcadm's own work per event (read the stream, check, sign, print, move the cursor) within 15 % of a round trip.
        target: `>= ${TARGET}x`,
        ok: measured / baseline >= TARGET,
      },
    ];
    // The replay: the same bodies repeated to REPLAYED lines, from a file, against the floor over the same lines.
    const recorded = join(work, 'recorded.ndjson');
    const lines = readFileSync(bodies);
    writeFileSync(recorded, Buffer.concat(Array.from({ length: Math.ceil(REPLAYED / EVENTS) }, () => lines)));
    const replay = [BIN, 'events', 'replay', recorded, '--forward-to', app.url, '-o', 'ndjson', '-q'];
    const replayFloorMs = [];
    const replayMs = [];
    const replayedLines = Math.ceil(REPLAYED / EVENTS) * EVENTS;
    for (let i = 0; i < RUNS; i++) {
      replayFloorMs.push(await timed(['-e', FLOOR], { ...env, URL: app.url, BODIES: recorded }));
      const before = await app.received();
      replayMs.push(await timed(replay, env));
      const got = (await app.received()) - before;
      if (got !== replayedLines) throw new Error(`the app got ${got} replayed events`);
    }
    const replayRate = replayedLines / (median(replayMs) / 1000);
    const replayBase = replayedLines / (median(replayFloorMs) / 1000);
    rows.push({
      name: `events replay --forward-to, ${replayedLines.toLocaleString('en-US')} recorded events vs node:http POSTs one at a time`,
      measured: replayRate,
      baseline: replayBase,
      ratio: replayRate / replayBase,
      unit: 'events/s',
      target: `>= ${TARGET}x`,
      ok: replayRate / replayBase >= TARGET,
    });
    if (!existsSync(TIME)) {
      rows.push(`forwarding peak RSS: skipped (${TIME} is missing)`);
      return rows;
    }
    for (const [what, argv] of [
      [`events tail --forward-to peak RSS, ${EVENTS.toLocaleString('en-US')} events`, forward],
      [`events replay --forward-to peak RSS, ${replayedLines.toLocaleString('en-US')} events`, replay],
    ]) {
      const rssFile = join(work, 'rss');
      await timed(argv, env, rssFile);
      const mb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024;
      rows.push({
        name: what,
        measured: mb,
        baseline: RSS_MB,
        ratio: mb / RSS_MB,
        unit: 'MB',
        target: `< ${RSS_MB} MB`,
        ok: mb < RSS_MB,
      });
    }
    return rows;
  } finally {
    await app.close();
    await emu.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const row of await run()) console.log(typeof row === 'string' ? row : JSON.stringify(row));
}
