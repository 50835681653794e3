#!/usr/bin/env node
// Tiny launcher. `--version` alone is answered without loading the program: CI calls it often, and the figure needs
// it (1.15x `node -e 0` so, 1.50x when the program answers; bound 1.2x; docs/decisions/2026-11-25-start-up-tricks.md).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (args[0] === '--svcadm-internal-child-role' && args[1] === 'background-emulator') {
  // The background emulator, a child role (src/util/child-role.ts; `main` runs the others): it loads the emulator's
  // entry alone, not the CLI's chunk (docs/decisions/2026-11-28-emulator-built-apart.md).
  const { serveAsBackgroundChild } = await import('../dist/emulator/server.js');
  serveAsBackgroundChild();
} else {
  enableCompileCache();
  // A `--debug` run prints the stack of an unexpected error: with the maps dist/ ships, it names src/ files and
  // lines. Node applies them only to modules loaded after this call, and reads none for a run without --debug.
  if (args.includes('--debug')) process.setSourceMapsEnabled(true);
  const { main } = await import('../dist/main.js');
  process.exitCode = await main(args);
}

/**
 * Node >= 22.1 keeps the compiled program in svcadm's own cache folder, so later runs start faster: on Node 22,
 * `policies get -o json` 1.70x a bare node:http GET with it, 1.86x without (6.2 ms); Node 20 has no such cache
 * (docs/decisions/2026-11-25-start-up-tricks.md). NODE_COMPILE_CACHE chooses another folder,
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node reads both); a folder that cannot be written only costs the
 * speed-up.
 */
function enableCompileCache() {
  const env = process.env;
  if (env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const { enableCompileCache: enable } = process.getBuiltinModule('node:module');
    if (typeof enable !== 'function') return;
    const { homedir } = process.getBuiltinModule('node:os');
    const { join } = process.getBuiltinModule('node:path');
    // The platform's cache folder, named as env-paths names svcadm's config folder (src/config/paths.ts).
    const base =
      process.platform === 'darwin'
        ? join(homedir(), 'Library', 'Caches', 'svcadm-nodejs')
        : process.platform === 'win32'
          ? join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'svcadm-nodejs', 'Cache')
          : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svcadm-nodejs');
    enable(join(base, 'compile-cache'));
  } catch {
    // No cache: the same program, started a little slower.
  }
}
