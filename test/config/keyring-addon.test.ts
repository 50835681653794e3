import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addonFolder, placeAddon, sha256Hex, verifiedAddon } from '../../src/config/keyring-addon.js';

// The executable's keyring addon, written to a private folder and checked before each load, with real files.
const BYTES = new TextEncoder().encode('a native addon, as far as these tests go');
const SHA = sha256Hex(BYTES);

function fresh(): string {
  return join(mkdtempSync(join(tmpdir(), 'svcadm-addon-')), 'cache', 'executable-1.2.3');
}

describe('the keyring addon of the executable', () => {
  it('lives in svcadm-nodejs/executable-<version> of the cache folder', () => {
    expect(addonFolder({ XDG_CACHE_HOME: '/c' }, '1.2.3')).toBe('/c/svcadm-nodejs/executable-1.2.3');
  });

  it('is written once to a new 0700 folder, and loads after its hash is checked', () => {
    const folder = fresh();
    const file = placeAddon(folder, BYTES, SHA);
    expect(file).toBe(join(folder, 'keyring.node'));
    expect(lstatSync(folder).mode & 0o777).toBe(0o700);
    expect(readFileSync(file)).toEqual(Buffer.from(BYTES));
    expect(lstatSync(file).mode & 0o777).toBe(0o500);
    expect(verifiedAddon(file, SHA)).toBe(file);
    expect(placeAddon(folder, BYTES, SHA)).toBe(file);
  });

  it('is refused at load when the file changed after it was written', () => {
    const folder = fresh();
    const file = placeAddon(folder, BYTES, SHA);
    chmodSync(file, 0o600);
    writeFileSync(file, 'something else');
    expect(() => verifiedAddon(file, SHA)).toThrow(
      `refusing to load ${file}: its SHA-256 is not the one this svcadm was built with`,
    );
  });

  it('is written again over a changed file before the next call', () => {
    const folder = fresh();
    const file = placeAddon(folder, BYTES, SHA);
    chmodSync(file, 0o600);
    writeFileSync(file, 'something else');
    expect(placeAddon(folder, BYTES, SHA)).toBe(file);
    expect(verifiedAddon(file, SHA)).toBe(file);
  });

  it('refuses a folder its group or others can read, and never changes its mode', () => {
    const folder = fresh();
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o755);
    expect(() => placeAddon(folder, BYTES, SHA)).toThrow(`refusing to use ${folder}: its mode is 0755, not 0700`);
    expect(lstatSync(folder).mode & 0o777).toBe(0o755);
  });

  it('refuses a folder that is a symbolic link', () => {
    const folder = fresh();
    const real = mkdtempSync(join(tmpdir(), 'svcadm-addon-real-'));
    chmodSync(real, 0o700);
    mkdirSync(join(folder, '..'), { recursive: true });
    symlinkSync(real, folder);
    expect(() => placeAddon(folder, BYTES, SHA)).toThrow(`refusing to use ${folder}: it is a symbolic link`);
  });

  it('refuses an addon file that is a symbolic link, at placing and at loading', () => {
    const folder = fresh();
    const file = placeAddon(folder, BYTES, SHA);
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'svcadm-addon-other-')), 'keyring.node');
    writeFileSync(elsewhere, BYTES);
    const linked = join(folder, 'linked.node');
    symlinkSync(elsewhere, linked);
    expect(() => verifiedAddon(linked, SHA)).toThrow(`refusing to use ${linked}: it is a symbolic link`);
    chmodSync(file, 0o600);
    writeFileSync(file, '');
    expect(() => verifiedAddon(file, SHA)).toThrow(/its SHA-256 is not the one/);
  });

  it('refuses an addon file its group or others can write', () => {
    const folder = fresh();
    const file = placeAddon(folder, BYTES, SHA);
    chmodSync(file, 0o666);
    expect(() => verifiedAddon(file, SHA)).toThrow(`refusing to use ${file}: it is writable by its group or others`);
  });
});
