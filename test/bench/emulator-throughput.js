// Emulator throughput: events/s to one stream and small GETs/s. Runs against the build: `npm run build` first.
// Usage: node test/bench/emulator-throughput.js   (or import { run } from it)
import './clean-env.js';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const EVENTS = 100_000;
const GETS = 20_000;
const CONNECTIONS = 8;

/** An admin access token for the emulator, straight from its token endpoint. */
export async function token(emu) {
  const res = await fetch(`${emu.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: emu.admin.clientId,
      client_secret: emu.admin.clientSecret,
      audience: `${emu.url}/api/v2/`,
    }),
  });
  return (await res.json()).access_token;
}

/** Reads one stream from the start of the history until `count` events arrived; counts `\n\n`-ended messages. */
function streamEvents(emu, accessToken, count) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let seen = 0;
    let tail = '';
    const req = http.get(
      `${emu.url}/api/v2/events?from_timestamp=2000-01-01T00:00:00Z`,
      { agent: false, headers: { authorization: `Bearer ${accessToken}` } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          const text = tail + chunk;
          let at = text.indexOf('\nevent: ');
          while (at !== -1) {
            seen++;
            at = text.indexOf('\nevent: ', at + 8);
          }
          const cut = text.lastIndexOf('\n\n');
          tail = cut === -1 ? text : text.slice(cut + 2);
          if (seen >= count) {
            const seconds = (performance.now() - started) / 1000;
            req.destroy();
            resolve(count / seconds);
          }
        });
      },
    );
    req.on('error', (err) => {
      if (seen < count) reject(err);
    });
  });
}

async function smallGets(emu, accessToken, total, connections) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const path = `/api/v2/rate-limit-policies/${emu.fixtures.policyIds[0]}`;
  const one = () =>
    new Promise((resolve, reject) => {
      http
        .get(`${emu.url}${path}`, { agent, headers: { authorization: `Bearer ${accessToken}` } }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`GET answered ${res.statusCode}`));
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  let remaining = total;
  const worker = async () => {
    while (remaining-- > 0) await one();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return total / seconds;
}

export async function measure() {
  const { startEmulator } = await import('../../dist/emulator/server.js');
  const emu = await startEmulator({ events: EVENTS + 1000, eventRate: 0, rateLimit: 0, heartbeatMs: 0 });
  try {
    const accessToken = await token(emu);
    const eventsPerSecond = await streamEvents(emu, accessToken, EVENTS);
    await smallGets(emu, accessToken, 2000, CONNECTIONS); // warm-up
    const getsPerSecond = await smallGets(emu, accessToken, GETS, CONNECTIONS);
    return { eventsPerSecond, getsPerSecond };
  } finally {
    await emu.close();
  }
}

/** Rows for bench.js: each rate as a multiple of its floor (higher is better). */
export async function run() {
  const { eventsPerSecond, getsPerSecond } = await measure();
  const row = (name, measured, floor) => ({
    name,
    measured,
    unit: '/s',
    ratio: measured / floor,
    target: `>= ${floor}/s`,
    ok: measured >= floor,
  });
  return [
    row('emulator events to one stream', eventsPerSecond, 5000),
    row(`emulator small GETs with keep-alive, ${CONNECTIONS} connections`, getsPerSecond, 2000),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await run()) {
    console.log(`${r.name}: ${Math.round(r.measured)}/s = ${r.ratio.toFixed(2)}x the floor (target ${r.target})`);
  }
}
