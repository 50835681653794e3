import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repo, without types
import { indexRows, withIndex } from '../scripts/decisions-index.js';

const dir = join(import.meta.dirname, '..', 'docs', 'decisions');

describe('docs/decisions/README.md', () => {
  it('indexes every record with its title and status (node scripts/decisions-index.js rewrites it)', () => {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toBe(withIndex(readme, indexRows(dir)));
  });
});
