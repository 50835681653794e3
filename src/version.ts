import { readFileSync } from 'node:fs';

/** Replaced by the build (scripts/build.js); from source, package.json is read instead. */
declare const SVCADM_VERSION: string | undefined;

let cached: string | undefined;

export function packageVersion(): string {
  if (typeof SVCADM_VERSION === 'string') return SVCADM_VERSION;
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
