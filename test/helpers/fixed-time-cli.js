// Runs the built svcadm as bin/svcadm.js does, but with its clock reading SVCADM_TEST_NOW (timers run on real time):
// screens captured in a pseudo-terminal then show dates and ages that do not depend on the day the tests run.
import { run } from '../../dist/main.js';

const now = Date.parse(process.env.SVCADM_TEST_NOW ?? '');
if (Number.isNaN(now)) throw new Error('set SVCADM_TEST_NOW to an RFC 3339 time');

const clock = {
  now: () => now,
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(handle), refresh: () => handle.refresh() };
  },
  setInterval: (fn, ms) => {
    const handle = setInterval(fn, ms);
    return { cancel: () => clearInterval(handle), refresh: () => handle.refresh() };
  },
};

const interrupt = new AbortController();
process.on('SIGINT', () => interrupt.abort());
process.exitCode = await run(process.argv.slice(2), {
  io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  env: process.env,
  clock,
  random: () => 0.5,
  interrupt: interrupt.signal,
});
