import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '..', '..', 'dist');
const STATIC_IMPORT =
  /(?:^|\n)\s*(?:import\s*"(\.[^"]+)"|}\s*from\s*"(\.[^"]+)"|import\s+[\w*{}\s,]+\s+from\s*"(\.[^"]+)")/g;
const DYNAMIC_IMPORT = /import\("(\.[^"]+)"\)/g;
/** Text only the MCP SDK carries (its per-request capability key). */
const SDK_MARK = 'io.modelcontextprotocol/clientCapabilities';

/** The files Node loads for `import('dist/main.js')` before any dynamic import runs. */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      visit(join(dirname(file), m[1] ?? m[2] ?? m[3] ?? ''));
    }
  };
  visit(entry);
  return seen;
}

describe('the MCP SDK is a lazy chunk (run `npm run build` first)', () => {
  const main = join(DIST, 'main.js');
  const loaded = staticGraph(main);

  it('is in none of the files every command loads', () => {
    expect(loaded.size).toBeGreaterThan(1);
    const withSdk = [...loaded].filter((file) => readFileSync(file, 'utf8').includes(SDK_MARK));
    expect(withSdk).toEqual([]);
  });

  it('is in a chunk main.js imports only on demand', () => {
    const dynamic = [...loaded].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(DYNAMIC_IMPORT)].map((m) => join(dirname(file), m[1] ?? '')),
    );
    const withSdk = dynamic.filter((file) => readFileSync(file, 'utf8').includes(SDK_MARK));
    expect(withSdk).toHaveLength(1);
  });
});
