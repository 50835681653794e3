import { join } from 'node:path';
import envPaths from 'env-paths';
import type { Env } from '../context.js';

/** The folder of the profile store and token cache: SVCADM_CONFIG_DIR, else the platform's config folder (by env-paths, as conf picked it before). */
export function configDir(env: Env): string {
  const fromEnv = env.SVCADM_CONFIG_DIR;
  if (fromEnv) return fromEnv;
  return envPaths('svcadm', { suffix: 'nodejs' }).config;
}

export const profilesFile = (dir: string): string => join(dir, 'profiles.json');
export const tokenCacheFile = (dir: string): string => join(dir, 'token-cache.json');
