import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, type Stats, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../context.js';
import { nodeCrypto } from '../util/node-crypto.js';
import { untrusted, untrustedText } from '../util/regular-file.js';

/**
 * The keyring's native addon inside the single executable: embedded as an asset with its SHA-256 (recorded by
 * scripts/release/executable.js), written on first use to a private folder of svcadm's cache, one per version, and
 * checked before every load (docs/decisions/2026-11-28-keyring-addon-in-the-executable.md). From npm the addon is
 * the optional dependency in node_modules, as before.
 */
export const KEYRING_ADDON_ASSET = 'keyring.node';
export const KEYRING_ADDON_HASH_ASSET = 'keyring.node.sha256';

/** Why the addon cannot be used here: the caller turns it into "no usable keyring". */
export class KeyringAddonRefused extends Error {}

/** The folder the executable of `version` writes its addon to: svcadm's cache folder (as bin/svcadm.js names it). */
export function addonFolder(env: Env, version: string): string {
  const base =
    process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Caches', 'svcadm-nodejs')
      : process.platform === 'win32'
        ? join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'svcadm-nodejs', 'Cache')
        : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svcadm-nodejs');
  return join(base, `executable-${version}`);
}

export function sha256Hex(bytes: Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KeyringAddonRefused(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** As ssh checks its files: the user's own (root's too), writable by no one else, and no link. */
function refuseUnlessPrivate(path: string, stats: Stats, what: 'folder' | 'file'): void {
  if (stats.isSymbolicLink()) throw new KeyringAddonRefused(`refusing to use ${path}: it is a symbolic link`);
  if (what === 'folder' ? !stats.isDirectory() : !stats.isFile()) {
    throw new KeyringAddonRefused(
      `refusing to use ${path}: it is not a ${what === 'folder' ? 'folder' : 'regular file'}`,
    );
  }
  const why = untrusted(stats);
  if (why !== undefined) throw new KeyringAddonRefused(`refusing to use ${path}: ${untrustedText(why)}`);
  if (what === 'folder' && process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    throw new KeyringAddonRefused(
      `refusing to use ${path}: its mode is ${(stats.mode & 0o777).toString(8).padStart(4, '0')}, not 0700`,
    );
  }
}

/**
 * The addon's file in `folder` (made 0700 when missing, an existing one checked, never changed), written from
 * `bytes` when it is missing or differs from `sha256`. The caller loads it only after `verifiedAddon`.
 */
export function placeAddon(folder: string, bytes: Uint8Array, sha256: string): string {
  const existing = lstatOrUndefined(folder);
  if (existing === undefined) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new KeyringAddonRefused(`cannot create ${folder}: ${(err as Error).message}`);
    }
  }
  refuseUnlessPrivate(folder, lstatSync(folder), 'folder');
  const file = join(folder, KEYRING_ADDON_ASSET);
  const stats = lstatOrUndefined(file);
  if (stats !== undefined) {
    refuseUnlessPrivate(file, stats, 'file');
    if (sha256Hex(readFileSync(file)) === sha256) return file;
  }
  // Written beside and renamed over: a process loading the old file never reads half of the new one.
  const temporary = join(folder, `.${KEYRING_ADDON_ASSET}.${process.pid}`);
  try {
    const fd = openSync(temporary, 'wx', 0o500);
    try {
      writeSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (err) {
    throw new KeyringAddonRefused(`cannot write ${file}: ${(err as Error).message}`);
  }
  return file;
}

/**
 * `file` checked right before it is loaded: private as `placeAddon` left it and its SHA-256 `sha256`, else
 * refused (a changed addon is never loaded).
 */
export function verifiedAddon(file: string, sha256: string): string {
  const stats = lstatOrUndefined(file);
  if (stats === undefined) throw new KeyringAddonRefused(`${file} is missing`);
  refuseUnlessPrivate(file, stats, 'file');
  if (sha256Hex(readFileSync(file)) !== sha256) {
    throw new KeyringAddonRefused(`refusing to load ${file}: its SHA-256 is not the one this svcadm was built with`);
  }
  return file;
}

/** The addon and its hash as the executable carries them; undefined where it carries none. */
export function embeddedAddon(): { bytes: Uint8Array; sha256: string } | undefined {
  const sea = process.getBuiltinModule('node:sea');
  try {
    const sha256 = sea.getAsset(KEYRING_ADDON_HASH_ASSET, 'utf8').trim();
    return { bytes: new Uint8Array(sea.getRawAsset(KEYRING_ADDON_ASSET) as ArrayBuffer), sha256 };
  } catch {
    return undefined;
  }
}
