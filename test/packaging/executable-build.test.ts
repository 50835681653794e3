import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repo, without types
import { buildExecutable } from '../../scripts/release/executable.js';
// @ts-expect-error: a plain script of the repo, without types
import { NODE_VERSION } from '../../scripts/release/node-version.js';

// Two builds of one commit differ only in Node's code cache (issue 39). Each build takes some 10 s, so this runs
// where the pinned Node is already fetched (release/.cache/, as `npm run release` and .ci/run leave it) or where an
// executable is under test (SVCADM_TEST_EXECUTABLE); elsewhere it is skipped, saying so.
const ROOT = join(import.meta.dirname, '..', '..');
const fetched = existsSync(
  join(ROOT, 'release', '.cache', `node-${NODE_VERSION}`, 'node_modules', 'node', 'bin', 'node'),
);
const skip = !fetched && process.env.SVCADM_TEST_EXECUTABLE === undefined;
const title = (name: string) =>
  skip ? `${name} [skipped: run npm run release first, or set SVCADM_TEST_EXECUTABLE]` : name;
const ADDON = join(ROOT, 'node_modules', '@napi-rs', 'keyring-linux-x64-gnu', 'keyring.linux-x64-gnu.node');

async function twice(codeCache: boolean): Promise<[Buffer, Buffer]> {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-build-twice-'));
  const built: Buffer[] = [];
  for (const name of ['one', 'two']) {
    const outFile = join(dir, name);
    const result = (await buildExecutable({ root: ROOT, version: '0.0.0-test', outFile, codeCache })) as {
      nodeVersion: string;
      sizeBytes: number;
    };
    expect(result.nodeVersion).toBe(NODE_VERSION);
    built.push(readFileSync(outFile));
  }
  return [built[0] as Buffer, built[1] as Buffer];
}

function firstDifference(a: Buffer, b: Buffer, from = 0): number {
  for (let i = from; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}

describe.skipIf(skip || process.platform !== 'linux')('two builds of the executable from one commit', () => {
  it(title('are the same, byte for byte, without the code cache'), async () => {
    const [one, two] = await twice(false);
    expect(firstDifference(one, two)).toBe(-1);
  }, 120_000);

  it(title('with it, differ only in the code cache: between the program and the assets after it'), async () => {
    const [one, two] = await twice(true);
    const blob = one.indexOf('NODE_SEA_BLOB');
    expect(blob).toBe(two.indexOf('NODE_SEA_BLOB'));
    // The note's header before its name holds the blob's size, which the cache's size changes.
    expect(one.subarray(0, blob - 64).equals(two.subarray(0, blob - 64))).toBe(true);
    const program = one.indexOf("const require = process.getBuiltinModule('node:module')", blob);
    expect(program).toBeGreaterThan(blob);
    const cacheStart = firstDifference(one, two, blob);
    expect(cacheStart).toBeGreaterThan(program);
    // The assets follow the cache, the keyring addon first: from there on both carry the same bytes.
    const addon = readFileSync(ADDON);
    const [atOne, atTwo] = [one.indexOf(addon, cacheStart), two.indexOf(addon, cacheStart)];
    expect(atOne).toBeGreaterThan(cacheStart);
    expect(atTwo).toBeGreaterThan(cacheStart);
    expect(atOne - cacheStart).toBeLessThan(2_000_000);
    const rest = Math.min(one.length - atOne, two.length - atTwo) - 64;
    expect(one.subarray(atOne, atOne + rest).equals(two.subarray(atTwo, atTwo + rest))).toBe(true);
  }, 120_000);
});
