import type * as Crypto from 'node:crypto';

/**
 * `node:crypto`, loaded on first use. Modules of the CLI's main chunk take it from here, never by `import`: an import
 * loads it at every start, and a read with a cached token needs none of it (test/startup/lazy-built-ins.test.ts).
 * Kept for start-up: `policies get -o json` takes 1.7 ms (CPU) more when it loads at start
 * (docs/decisions/2026-11-25-start-up-tricks.md).
 */
export function nodeCrypto(): typeof Crypto {
  return process.getBuiltinModule('node:crypto');
}
