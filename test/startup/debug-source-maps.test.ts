import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopback } from '../helpers/loopback-server.js';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';

// dist/ ships linked source maps; a --debug run turns them on before it loads the program, so the stack of an
// unexpected error names src/ files and lines, not the bundle's chunk (docs/decisions/2026-11-25-source-maps.md).
// svcadm has no way of its own to fail unexpectedly, so a preloaded script makes node:http's request throw, as a
// bug would, on the way of a real `policies get`; it also records whether Node had source maps on.
const FAULT = `
const http = require('node:http');
http.request = () => {
  throw new TypeError('a fault injected into node:http');
};
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ sourceMaps: process.sourceMapsEnabled }));
});
`;

const DIST = join(import.meta.dirname, '..', '..', 'dist');
const FRAME = /^\s+at .*\((.+):(\d+):(\d+)\)$|^\s+at (\/.+):(\d+):(\d+)$/;

describe('an unexpected error in the built CLI', () => {
  let server: Awaited<ReturnType<typeof startLoopback>>;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startLoopback([(_req, res) => res.end('{}')]);
    dir = tempConfigDir();
    writeFileSync(join(dir, 'fault.cjs'), FAULT);
    env = {
      SVCADM_CONFIG_DIR: dir,
      SVCADM_DOMAIN: server.url,
      SVCADM_TOKEN: 'a-token',
      NODE_OPTIONS: `--require ${join(dir, 'fault.cjs')}`,
      PROBE_OUT: join(dir, 'probe.json'),
    };
  });
  afterAll(() => server.close());

  const sourceMapsWereOn = () =>
    (JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8')) as { sourceMaps: boolean }).sourceMaps;

  it('under --debug, has a stack trace that names src/ files and lines', async () => {
    const r = await runBin(['policies', 'get', 'rlp_1', '--debug'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(sourceMapsWereOn()).toBe(true);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe('TypeError: a fault injected into node:http');
    const files = lines.flatMap((line) => {
      const m = FRAME.exec(line);
      return m ? [`${m[1] ?? m[4]}:${m[2] ?? m[5]}`] : [];
    });
    const ours = files.filter((file) => !file.includes('fault.cjs') && !file.startsWith('node:'));
    expect(ours.length).toBeGreaterThan(0);
    for (const file of ours) expect(file).toMatch(/\/src\/[\w/.-]+\.ts:\d+$/);
    expect(r.stderr).not.toContain('/dist/');
    expect(lines.at(-2)).toBe(
      'svcadm: unexpected error: a fault injected into node:http — this is a bug in svcadm; run again with --debug and report what it prints',
    );
  });

  it('without --debug, prints no trace and leaves source maps off', async () => {
    const r = await runBin(['policies', 'get', 'rlp_1'], env);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'svcadm: unexpected error: a fault injected into node:http — this is a bug in svcadm; run again with --debug and report what it prints\n',
    });
    expect(sourceMapsWereOn()).toBe(false);
  });
});

describe('the maps in dist/', () => {
  it('sit beside every file, which names its own, and point into src/ without carrying its text', () => {
    const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const code = readFileSync(join(DIST, file), 'utf8');
      const name = file.split('/').at(-1);
      expect(code.trimEnd().endsWith(`//# sourceMappingURL=${name}.map`)).toBe(true);
      expect(existsSync(join(DIST, `${file}.map`))).toBe(true);
    }
    const main = JSON.parse(readFileSync(join(DIST, 'emulator', 'server.js.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(main.sources).toContain('../../src/emulator/server.ts');
    expect(main.sourcesContent).toBeUndefined();
  });
});
