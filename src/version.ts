import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version, read once from package.json (dist/ and src/ both sit one level below it). */
export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
