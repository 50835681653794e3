import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repo, without types
import { buildExecutable, bundleProgram } from '../../scripts/release/executable.js';
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

async function twice(codeCache: boolean): Promise<[Buffer, Buffer]> {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-build-twice-'));
  const built: Buffer[] = [];
  try {
    for (const name of ['one', 'two']) {
      const outFile = join(dir, name);
      const result = (await buildExecutable({ root: ROOT, version: '0.0.0-test', outFile, codeCache })) as {
        nodeVersion: string;
        sizeBytes: number;
      };
      expect(result.nodeVersion).toBe(NODE_VERSION);
      built.push(readFileSync(outFile));
    }
  } finally {
    // Two executables of 125 MB each.
    rmSync(dir, { recursive: true, force: true });
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

  it(title('with it, differ only in the code cache and the sizes that name its length'), async () => {
    const [one, two] = await twice(true);
    // A cache made as the builder makes it: V8's header (magic, V8's version, the text's hash, the flags' hash, a
    // checksum) is the same each time; then the payload's length, then the payload, which is not.
    const dir = mkdtempSync(join(tmpdir(), 'svcadm-build-cache-'));
    await bundleProgram(ROOT, '0.0.0-test', dir);
    const node = join(ROOT, 'release', '.cache', `node-${NODE_VERSION}`, 'node-stripped');
    const maker = join(ROOT, 'scripts', 'release', 'program-cache.mjs');
    execFileSync(node, ['--experimental-vm-modules', '--no-warnings', maker, 'program.mjs', 'cache'], { cwd: dir });
    const cache = readFileSync(join(dir, 'cache'));
    rmSync(dir, { recursive: true, force: true });
    const header = cache.subarray(0, 20);
    const headerSize = cache.length - cache.readUInt32LE(20);
    const withoutCache = (file: Buffer) => {
      const at = file.indexOf(header);
      expect(at).toBeGreaterThan(0);
      expect(file.indexOf(header, at + 1)).toBe(-1);
      const end = at + headerSize + file.readUInt32LE(at + 20);
      return { rest: Buffer.concat([file.subarray(0, at), file.subarray(end)]), at };
    };
    const [a, b] = [withoutCache(one), withoutCache(two)];
    expect(a.at).toBe(b.at);
    // What the cache's length changes besides: the note that holds the blob (its sizes, in the ELF headers a few KB
    // before its name), the cache's own size just before it, and, after the blob, the section names and headers
    // (moved by the blob's aligned length). The file ends on a page, so its padding differs in length. Nothing else.
    const blob = one.lastIndexOf('NODE_SEA_BLOB', a.at);
    // (Each file's section headers start where its blob ends, aligned: found from the ELF header's e_shoff.)
    const sectionsOf = (file: Buffer, rest: Buffer) => Number(file.readBigUInt64LE(0x28)) - (file.length - rest.length);
    // The section names (.shstrtab, a few hundred bytes) sit between the blob and them, moved alike.
    const sections = Math.min(sectionsOf(one, a.rest), sectionsOf(two, b.rest)) - 1024;
    const allowed = (i: number) => (i >= blob - 8192 && i < blob) || (i >= a.at - 16 && i < a.at) || i >= sections;
    const differing: number[] = [];
    const length = Math.min(a.rest.length, b.rest.length);
    for (let i = 0; i < length; i++) if (a.rest[i] !== b.rest[i]) differing.push(i);
    expect(differing.filter((i) => !allowed(i))).toEqual([]);
    expect(differing.length).toBeLessThan(2_000);
  }, 120_000);
});
