import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';

// The emulator's entry (dist/emulator/server.js) is built apart from the CLI: the process that serves an emulator
// loads its own code, not the CLI's chunk (docs/decisions/2026-11-28-emulator-built-apart.md). Preloaded into every
// process of a run, these hooks record the files each one loads, in a file named after its process id.
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.PROBE_DIR + '/' + process.pid + '.loaded', url + '\\n');
  return next(url, context);
}
`;
const REGISTER = "import { register } from 'node:module';\nregister(new URL('./hooks.mjs', import.meta.url));\n";

const ROOT = join(import.meta.dirname, '..', '..');

const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid);
    } catch {}
  }
});

describe('an emulator started by svcadm emulator --print-env', () => {
  it('loads the launcher and the emulator entry alone: not the CLI chunk, not a chunk shared with it', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
    writeFileSync(join(dir, 'register.mjs'), REGISTER);
    const r = await runBin(['emulator', '--print-env', '--port', '0'], {
      SVCADM_CONFIG_DIR: dir,
      NODE_OPTIONS: `--import ${join(dir, 'register.mjs')}`,
      PROBE_DIR: dir,
    });
    const pid = Number(/^export SVCADM_EMULATOR_PID=(\d+)$/m.exec(r.stdout)?.[1]);
    if (pid > 0) pids.push(pid);
    expect(r.code).toBe(0);
    expect(pid).toBeGreaterThan(0);
    const loaded = readFileSync(join(dir, `${pid}.loaded`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((url) => relative(ROOT, fileURLToPath(url)));
    expect(loaded).toEqual(['bin/svcadm.js', 'dist/emulator/server.js']);
  });
});
