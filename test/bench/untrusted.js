// Peak RSS of svcadm against loopback servers that misbehave on purpose (run after `npm run build`): an event
// stream whose line never ends, an event of 200 MB, and a 250 MB answer to `policies get`. Memory must not depend
// on what the server sends: each run ends with exit 7 and stays under 150 MB.
import './clean-env.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// BENCH_BIN measures another build (an older commit's) in the same conditions.
const BIN = process.env.BENCH_BIN ?? join(here, '..', '..', 'bin', 'svcadm.js');
const TIME = '/usr/bin/time';
const MB = 1024 * 1024;
const LIMIT_MB = 150;

/** Writes `block` until `bytes` are sent (or the client leaves), with backpressure; then `done`. */
function pump(res, block, bytes, done) {
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const more = () => {
    while (!closed && sent < bytes) {
      sent += block.length;
      if (!res.write(block)) return void res.once('drain', more);
    }
    if (!closed) done();
  };
  more();
}

const HOSTILE = {
  /** `data: {"offset":"xxxx…` without an end. */
  endlessLine(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"offset":"');
    pump(res, Buffer.alloc(64 * 1024, 'x'), Number.POSITIVE_INFINITY, () => res.end());
  },
  /** One event of 200 MB, as 64 KB `data:` lines. */
  hugeEvent(_req, res) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: user.created\n');
    pump(res, Buffer.from(`data: ${'y'.repeat(64 * 1024 - 7)}\n`), 200 * MB, () => res.end('\n'));
  },
  /** A 250 MB answer, without a Content-Length. */
  hugeAnswer(_req, res) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":"');
    pump(res, Buffer.alloc(64 * 1024, 'z'), 250 * MB, () => res.end('"}'));
  },
};

async function serve(behaviour) {
  const server = http.createServer(behaviour);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Runs svcadm under /usr/bin/time against `url`; resolves with its exit code and peak RSS in MB. */
function peak(args, url, work) {
  const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`);
  return new Promise((done, fail) => {
    const child = spawn(TIME, ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVCADM_DOMAIN: url,
        SVCADM_TOKEN: 'bench-token',
        SVCADM_CONFIG_DIR: work,
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      const text = readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '';
      done({ code, mb: Number(text) / 1024 });
    });
  });
}

const CASES = [
  [
    'events tail, a line that never ends (--max-reconnects 1)',
    HOSTILE.endlessLine,
    ['events', 'tail', '--max-reconnects', '1'],
  ],
  [
    'events tail, one event of 200 MB (--max-reconnects 1)',
    HOSTILE.hugeEvent,
    ['events', 'tail', '--max-reconnects', '1'],
  ],
  ['policies get, a 250 MB answer', HOSTILE.hugeAnswer, ['policies', 'get', 'rlp_1', '-o', 'json']],
];

export async function run() {
  if (!existsSync(TIME)) return [`hostile servers: skipped (${TIME} is missing)`];
  const rows = [];
  const work = mkdtempSync(join(tmpdir(), 'svcadm-bench-hostile-'));
  try {
    for (const [name, behaviour, args] of CASES) {
      const server = await serve(behaviour);
      try {
        const { code, mb } = await peak(args, server.url, work);
        rows.push({
          name: `peak RSS against a hostile server: ${name}, exit ${code}`,
          measured: mb,
          baseline: LIMIT_MB,
          ratio: mb / LIMIT_MB,
          unit: 'MB',
          target: `< ${LIMIT_MB} MB, exit 7`,
          ok: mb < LIMIT_MB && code === 7,
        });
      } finally {
        await server.close();
      }
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  for (const row of await run()) console.log(typeof row === 'string' ? row : JSON.stringify(row));
}
