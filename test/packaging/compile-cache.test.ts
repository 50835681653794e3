import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';

// The launcher's module compile cache (Node >= 22.8 has module.enableCompileCache): in svcadm's own cache folder,
// never a failure. .ci/run runs this file under Node 22 and 24; under Node 20 it checks that nothing is written.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const hasCache = major > 22 || (major === 22 && minor >= 8);

describe(`the compile cache under Node ${process.versions.node}`, () => {
  it(
    hasCache ? 'is kept in $XDG_CACHE_HOME/svcadm-nodejs/compile-cache' : 'is not used: nothing is written',
    async () => {
      const cache = mkdtempSync(join(tmpdir(), 'svcadm-cache-'));
      const r = await runBin(['--quiet', 'profiles', 'list'], {
        XDG_CACHE_HOME: cache,
        SVCADM_CONFIG_DIR: tempConfigDir(),
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      if (hasCache) {
        expect(readdirSync(cache)).toEqual(['svcadm-nodejs']);
        expect(readdirSync(join(cache, 'svcadm-nodejs'))).toEqual(['compile-cache']);
        expect(readdirSync(join(cache, 'svcadm-nodejs', 'compile-cache'))).toEqual([
          expect.stringMatching(new RegExp(`^v${process.versions.node}-`)),
        ]);
      } else {
        expect(readdirSync(cache)).toEqual([]);
      }
    },
  );

  it('costs nothing but the speed-up where the folder cannot be written, and stays off when Node is told', async () => {
    const blocked = mkdtempSync(join(tmpdir(), 'svcadm-cache-'));
    writeFileSync(join(blocked, 'svcadm-nodejs'), 'a file where the folder would be');
    const readOnly = mkdtempSync(join(tmpdir(), 'svcadm-cache-'));
    chmodSync(readOnly, 0o500);
    const off = mkdtempSync(join(tmpdir(), 'svcadm-cache-'));
    for (const env of [
      { XDG_CACHE_HOME: blocked },
      { XDG_CACHE_HOME: readOnly },
      { XDG_CACHE_HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' },
    ]) {
      const r = await runBin(['--quiet', 'profiles', 'list'], { ...env, SVCADM_CONFIG_DIR: tempConfigDir() });
      expect({ env, code: r.code, stderr: r.stderr }).toEqual({ env, code: 0, stderr: '' });
    }
    expect(readdirSync(off)).toEqual([]);
  });
});
