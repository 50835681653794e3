// Start-up and one-shot request cost of svcadm against floors measured in the same run.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.BENCH_BIN || join(root, 'bin', 'svcadm.js');

export function timeProcess(args, env = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

export async function run({ pairs = 11 } = {}) {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const emu = await startEmulator({ port: 0, rateLimit: 0 });
  try {
    const env = { ...emu.env, SVCADM_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svcadm-bench-')) };
    const token = (await timeProcess([BIN, 'auth', 'token'], env)).out.trim(); // fills the token cache
    const id = emu.fixtures.policyIds[0];
    const version = await pairwise(
      pairs,
      () => timeProcess(['-e', '0']),
      () => timeProcess([BIN, '--version']),
    );
    const get = await pairwise(
      pairs,
      () => timeProcess(['-e', FLOOR_GET], { URL: `${emu.url}/api/v2/rate-limit-policies/${id}`, TOKEN: token }),
      () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], env),
    );
    // Node >= 22.8: the launcher keeps a compile cache in svcadm's cache folder; the same run without it, for the record.
    const cache =
      typeof (await import('node:module')).enableCompileCache === 'function'
        ? await pairwise(
            pairs,
            () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }),
            () => timeProcess([BIN, 'policies', 'get', id, '-o', 'json'], env),
          )
        : undefined;
    const target = { URL: `${emu.url}/api/v2/rate-limit-policies/${id}`, TOKEN: token };
    const undici = await pairwise(
      pairs,
      () => timeProcess(['-e', FLOOR_GET], target),
      () => timeProcess(['-e', UNDICI_GET], { ...target, UNDICI: createRequire(import.meta.url).resolve('undici') }),
    );
    return [
      {
        name: 'svcadm --version vs node -e 0',
        baseline: version.a,
        measured: version.b,
        ratio: version.b / version.a,
        target: '<= 1.2x',
        ok: version.b / version.a <= 1.2,
      },
      {
        name: 'policies get -o json (cached token) vs node:http GET',
        baseline: get.a,
        measured: get.b,
        ratio: get.b / get.a,
        target: '<= 1.5x',
        ok: get.b / get.a <= 1.5,
      },
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
        name: 'for the record: one GET with undici vs node:http (why the HTTP layer is node:http)',
        baseline: undici.a,
        measured: undici.b,
        ratio: undici.b / undici.a,
        target: 'none',
      },
      ...(process.env.NODE_EXTRA_CA_CERTS && Number(process.versions.node.split('.')[0]) < 22
        ? [
            // Node 20 reads and parses the whole file as every process starts (about 50 ms for Debian's bundle):
            // the same time on both sides of each ratio, which makes both look better than on a machine without it.
            'note: NODE_EXTRA_CA_CERTS is set, which Node 20 loads as each process starts: the ratios above are lower than without it (docs/decisions/2026-11-25-start-up-tricks.md)',
          ]
        : []),
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
