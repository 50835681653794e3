// `events tail` bench (run after `npm run build`): NDJSON throughput against `curl -N … | grep -m N '^data:'` on the same
// stream, served by a loopback server that is not the bottleneck (the emulator's events, captured once and replayed
// as fast as the client reads), and peak RSS for N events in NDJSON and in the live view under a pseudo-terminal.
import './clean-env.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChunkPerMessageStream, startFastStream, startRetryEveryMessageStream } from './sse-loopback.js';
import { median } from './startup.js';

const here = dirname(fileURLToPath(import.meta.url));
// BENCH_BIN measures another build (an older commit's) in the same conditions.
const BIN = process.env.BENCH_BIN ?? join(here, '..', '..', 'bin', 'svcadm.js');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TIME = '/usr/bin/time';

function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** Runs a shell command with stdout to /dev/null; resolves with its wall time in ms. */
function timed(command, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('sh', ['-c', command], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`'${command}' exited with ${code}: ${stderr.slice(-500)}`));
      else resolve({ ms, stderr });
    });
  });
}

/** `curl -N … | grep -m N '^data:'`, timed until grep has its N lines (curl is then stopped: a stream never ends). */
function timedCurlGrep(url, accessToken, count) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // grep's output is a pipe drained here: GNU grep writing to /dev/null keeps reading past -m.
    const grep = spawn('grep', ['-m', String(count), '^data:'], { stdio: ['pipe', 'pipe', 'ignore'] });
    grep.stdout.resume();
    // curl writes straight into grep's stdin (an OS pipe): this process is not in the data path.
    const curl = spawn('curl', ['-sN', '-H', `Authorization: Bearer ${accessToken}`, url], {
      stdio: ['ignore', grep.stdin, 'ignore'],
    });
    grep.stdin.destroy();
    curl.on('error', reject);
    grep.on('error', reject);
    grep.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      curl.kill();
      if (code !== 0) reject(new Error(`grep exited with ${code}`));
      else resolve({ ms });
    });
  });
}

function peakRssMb(file) {
  const text = readFileSync(file, 'utf8').trim().split('\n').pop() ?? '';
  return Number(text) / 1024;
}

export async function run() {
  const rows = [];
  const server = await startFastStream(EVENTS);
  const work = mkdtempSync(join(tmpdir(), 'svcadm-bench-events-'));
  try {
    const accessToken = 'bench-token';
    const since = '2000-01-01T00:00:00Z';
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVCADM_DOMAIN: server.url,
      SVCADM_TOKEN: accessToken,
      SVCADM_CONFIG_DIR: work,
    };
    const tail = `${shellQuote(process.execPath)} ${shellQuote(BIN)} events tail --since ${since} --max-events ${EVENTS} -o ndjson`;
    const curlMs = [];
    const nullMs = [];
    const pipeMs = [];
    // Interleaved, so that a change in the machine's load touches all three alike.
    for (let i = 0; i < RUNS; i++) {
      curlMs.push((await timedCurlGrep(`${server.url}/api/v2/events?from_timestamp=${since}`, accessToken, EVENTS)).ms);
      nullMs.push((await timed(`${tail} > /dev/null`, env)).ms);
      // A pipe to a reader that keeps up: stdout is then a socket-like stream, not a file.
      pipeMs.push((await timed(`${tail} | cat > /dev/null`, env)).ms);
    }
    const baseline = median(curlMs);
    // The bound to /dev/null is issue 27's; the pipe keeps round 3's.
    // The 1.5x to /dev/null is a target, not a gate (issue 37): said met or missed, never counted as missed.
    for (const [where, times, bound, gate] of [
      ['to /dev/null', nullMs, 1.5, false],
      ['to a pipe (| cat)', pipeMs, 2.0, true],
    ]) {
      const measured = median(times);
      const met = measured / baseline <= bound;
      rows.push({
        name: `events tail NDJSON, ${EVENTS.toLocaleString('en-US')} events (${(server.bytes / 1e6).toFixed(0)} MB) from a loopback server that is not the bottleneck, ${where}, vs curl | grep (median of ${RUNS})`,
        measured,
        baseline,
        ratio: measured / baseline,
        target: gate
          ? `<= ${bound.toFixed(1)}x`
          : `<= ${bound.toFixed(1)}x, a target, not a gate: ${met ? 'met' : 'missed'}`,
        ok: gate ? met : undefined,
      });
    }

    /** The tail to /dev/null and `curl | grep` against another server of the same events, alternating: medians. */
    const againstCurl = async (other) => {
      const curl = [];
      const tailed = [];
      for (let i = 0; i < RUNS; i++) {
        curl.push((await timedCurlGrep(`${other.url}/api/v2/events?from_timestamp=${since}`, accessToken, EVENTS)).ms);
        tailed.push((await timed(`${tail} > /dev/null`, { ...env, SVCADM_DOMAIN: other.url })).ms);
      }
      return { measured: median(tailed), baseline: median(curl) };
    };

    // The same events with one HTTP chunk per message, as the emulator sends them: many chunks per socket read.
    const perMessage = await startChunkPerMessageStream(server.body);
    try {
      const { measured, baseline } = await againstCurl(perMessage);
      rows.push({
        name: `events tail NDJSON, the same events one HTTP chunk per message, to /dev/null, vs curl | grep (median of ${RUNS})`,
        measured,
        baseline,
        ratio: measured / baseline,
        target: '<= 2.0x',
        ok: measured / baseline <= 2.0,
      });
    } finally {
      await perMessage.close();
    }

    // Every message through the parser (a `retry:` in each): for the record.
    const retrying = await startRetryEveryMessageStream(server.body);
    try {
      const { measured, baseline } = await againstCurl(retrying);
      rows.push({
        name: `for the record: events tail NDJSON, the same events each with retry: (the parser's way), to /dev/null, vs curl | grep (median of ${RUNS})`,
        measured,
        baseline,
        ratio: measured / baseline,
        target: 'none',
      });
    } finally {
      await retrying.close();
    }

    if (!existsSync(TIME)) {
      rows.push(`peak RSS: skipped (${TIME} is missing)`);
      return rows;
    }
    const ndjsonRss = join(work, 'rss-ndjson');
    await timed(`${TIME} -f %M -o ${shellQuote(ndjsonRss)} ${tail} > /dev/null`, env);
    const ndjsonMb = peakRssMb(ndjsonRss);
    rows.push({
      name: `events tail NDJSON peak RSS, ${EVENTS.toLocaleString('en-US')} events`,
      measured: ndjsonMb,
      baseline: 80,
      ratio: ndjsonMb / 80,
      unit: 'MB',
      target: '< 80 MB',
      ok: ndjsonMb < 80,
    });

    const hasScript = spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;
    if (!hasScript) {
      rows.push('live view peak RSS: skipped (script from util-linux is missing)');
      return rows;
    }
    const liveRss = join(work, 'rss-live');
    const live = `${TIME} -f %M -o ${shellQuote(liveRss)} ${shellQuote(process.execPath)} ${shellQuote(BIN)} events tail --since ${since} --max-events ${EVENTS}`;
    // A pty made by `script` off a terminal has no size: give it one, as a terminal would.
    const liveRun = await timed(`script -qfec ${shellQuote(`stty rows 40 cols 120; exec ${live}`)} /dev/null`, {
      ...env,
      TERM: 'xterm-256color',
    });
    const liveMb = peakRssMb(liveRss);
    rows.push({
      name: `events tail live view (pty) peak RSS, ${EVENTS.toLocaleString('en-US')} events in ${(liveRun.ms / 1000).toFixed(1)} s`,
      measured: liveMb,
      baseline: 100,
      ratio: liveMb / 100,
      unit: 'MB',
      target: '< 100 MB',
      ok: liveMb < 100,
    });
    return rows;
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const row of await run()) console.log(typeof row === 'string' ? row : JSON.stringify(row));
}
