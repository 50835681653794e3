import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { Env } from '../context.js';

/** The folder of the profile store and token cache: SVCADM_CONFIG_DIR, else the platform's config folder (as conf picks it). */
export function configDir(env: Env): string {
  const fromEnv = env.SVCADM_CONFIG_DIR;
  if (fromEnv) return fromEnv;
  return envPaths('svcadm', { suffix: 'nodejs' }).config;
}

export const profilesFile = (dir: string): string => join(dir, 'profiles.json');
export const tokenCacheFile = (dir: string): string => join(dir, 'token-cache.json');

/** Creates the folder if needed and makes sure only its owner can enter it: it holds secrets. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
