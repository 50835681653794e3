import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenCacheFile } from '../../src/config/paths.js';
import { readCachedToken, writeCachedToken } from '../../src/config/token-cache.js';
import { tempConfigDir } from '../helpers/run-cli.js';

// The token cache is read once for a run across many tenants (kept by the file's identity): what another svcadm
// writes in between must still be seen, and what one caller changes must not leak into the next read.

const NOW = 1_800_000_000_000;
const token = (accessToken: string) => ({ accessToken, expiresAt: NOW + 3_600_000, secretCheck: 's' });
const file = (tokens: Record<string, unknown>) => `${JSON.stringify(tokens, null, 2)}\n`;

describe('token cache reads', () => {
  it('sees a cache another process replaced, even one of the same size', async () => {
    const dir = tempConfigDir();
    await writeCachedToken(dir, 'k', token('aaaa'), NOW);
    const read = () => readCachedToken(dir, 'k', 's', NOW);
    expect(read()).toEqual(token('aaaa'));
    const other = join(dir, 'other.json');
    writeFileSync(other, file({ k: token('bbbb') }), { mode: 0o600 });
    renameSync(other, tokenCacheFile(dir));
    expect(read()).toEqual(token('bbbb'));
    writeFileSync(tokenCacheFile(dir), file({ k: token('cccccc') }), { mode: 0o600 });
    expect(read()).toEqual(token('cccccc'));
  });

  it('a write after a read keeps the other tenants’ tokens, and drops only its own', async () => {
    const dir = tempConfigDir();
    await writeCachedToken(dir, 'a', token('aaaa'), NOW);
    await writeCachedToken(dir, 'b', token('bbbb'), NOW);
    await writeCachedToken(dir, 'a', undefined, NOW);
    const read = (key: string) => readCachedToken(dir, key, 's', NOW);
    expect([read('a'), read('b')]).toEqual([undefined, token('bbbb')]);
  });
});
