import type * as Crypto from 'node:crypto';

/**
 * `node:crypto`, loaded on first use. Modules of the CLI's main chunk take it from here, never by `import`: an import
 * loads it at every start (about 3 ms on Node 20), and a read with a cached token needs none of it
 * (test/startup/lazy-built-ins.test.ts).
 */
export function nodeCrypto(): typeof Crypto {
  return process.getBuiltinModule('node:crypto');
}
