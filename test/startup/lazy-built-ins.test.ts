import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Of } from '../../src/util/sha256.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';

// What the most common run, a read with a cached token, leaves alone: node:crypto, which would cost its start-up
// (docs/decisions/2026-11-25-start-up-tricks.md), node:readline and node:fs/promises, which only results spooled
// across tenants need (src/io/tenant-spool.ts), and process.stdin, whose creation makes a piped stdin non-blocking
// (src/context.ts). Preloaded into the built CLI, this records what it touched.
const PROBE = `
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin');
let stdinRead = false;
Object.defineProperty(process, 'stdin', {
  configurable: true,
  enumerable: stdin.enumerable,
  get() { stdinRead = true; return stdin.get.call(process); },
});
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({
    stdin: stdinRead,
    crypto: process.moduleLoadList.includes('NativeModule crypto'),
    readline: process.moduleLoadList.includes('NativeModule readline'),
    fsPromises: process.moduleLoadList.includes('NativeModule fs/promises'),
  }));
});
`;

describe('a read with a cached token', () => {
  let emu: TestEmulator;
  let env: Record<string, string>;
  let probe: string;
  beforeAll(async () => {
    emu = await startTestEmulator();
    const dir = tempConfigDir();
    env = { ...emu.env, SVCADM_CONFIG_DIR: dir };
    probe = join(dir, 'probe.cjs');
    writeFileSync(probe, PROBE);
    expect((await runBin(['auth', 'token'], env)).code).toBe(0);
  });
  afterAll(() => emu.close());

  async function probed(argv: string[], stdin?: string) {
    const out = join(env.SVCADM_CONFIG_DIR ?? '', 'probe.json');
    const before = (await emu.requests()).counters;
    const r = await runBin(argv, { ...env, NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out }, stdin);
    const after = (await emu.requests()).counters;
    return {
      ...r,
      loaded: JSON.parse(readFileSync(out, 'utf8')) as Record<'stdin' | 'crypto' | 'readline' | 'fsPromises', boolean>,
      tokenRequests: after.tokenRequests - before.tokenRequests,
    };
  }

  it('creates no process.stdin, loads neither node:crypto nor what spooling needs, and answers from the cached token', async () => {
    const id = emu.fixtures.policyIds[0] ?? '';
    const r = await probed(['policies', 'get', id, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id });
    expect(r.tokenRequests).toBe(0);
    expect(r.loaded).toEqual({ stdin: false, crypto: false, readline: false, fsPromises: false });
  });

  it('still reads stdin for a command that takes its input from there', async () => {
    const r = await probed(
      [
        '--domain',
        emu.url,
        '--client-id',
        'abc',
        'profiles',
        'add',
        'ci',
        '--client-secret-stdin',
        '--no-verify',
        '--insecure-storage',
      ],
      's3cret',
    );
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'profiles.json');
    expect(r.stderr).toBe(
      `Saved profile 'ci' for ${emu.url} (client abc); it is the current profile. The client secret is stored in ${file} (mode 0600).\n`,
    );
    expect(r.code).toBe(0);
    expect(r.loaded.stdin).toBe(true);
    const saved = JSON.parse(readFileSync(join(env.SVCADM_CONFIG_DIR ?? '', 'profiles.json'), 'utf8'));
    expect(saved.profiles.ci).toEqual({ domain: emu.url, clientId: 'abc', clientSecret: 's3cret' });
  });
});

describe('the token cache check without node:crypto', () => {
  it("gives node:crypto's SHA-256, so tokens cached by an earlier version stay valid", () => {
    for (const text of ['', 'svcadm token cache\0https://t.example.com\0s3cret', 'clé 🔑 \u2028', 'x'.repeat(1000)]) {
      expect(sha256Of(text).toString('base64url')).toBe(createHash('sha256').update(text).digest('base64url'));
      expect(sha256Of(text).toString('hex')).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });
});
