import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { sha256Of } from '../util/sha256.js';
import { acquireLock, type LockContext } from './file-lock.js';
import { ensurePrivateDir } from './private-file.js';

export type { LockContext } from './file-lock.js';

/**
 * Parallel cold starts (a CI matrix, `xargs -P`) share one token request: the first process takes a lock file in
 * the config folder, asks for a token and caches it; the others wait for the lock and then find the token in the
 * cache. Token issuance is metered, and 20 jobs used to make 20 requests. One lock per cache key (token URL, client
 * id, audience): a hung token service of one profile never delays another's. The lock is best-effort, as the cache
 * is: where it cannot be taken (a read-only or full folder), the token is asked for without it.
 */
export const TOKEN_LOCK_PREFIX = 'token-request-';
/** How often a waiting process looks at the lock again. */
export const LOCK_POLL_MS = 100;
/** Waiting is bounded: past this, a process asks for its own token rather than wait on a holder that hangs. */
export const LOCK_WAIT_MS = 30_000;
/** A lock older than this is taken for left over, whoever holds it (a token request takes seconds at most). */
export const LOCK_STALE_MS = 120_000;

/** The lock file of one cache key: a hash, so that no URL or client id ever becomes part of a file name. */
export function tokenLockFile(cacheKey: string): string {
  return `${TOKEN_LOCK_PREFIX}${sha256Of(cacheKey).toString('hex').slice(0, 16)}.lock`;
}

/**
 * Runs `work` holding the token lock of `cacheKey` in `dir`: at once when it is free, after its holder is done when
 * it is held, after removing it when it is left over, and without it once LOCK_WAIT_MS have passed or when it
 * cannot be taken at all.
 */
export async function withTokenLock<T>(
  dir: string,
  cacheKey: string,
  ctx: LockContext,
  work: () => Promise<T>,
): Promise<T> {
  try {
    ensurePrivateDir(dir);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    ctx.trace?.(`cannot take the token lock (${(err as Error).message}): asking for a token without it`);
    return work();
  }
  const outcome = await acquireLock(join(dir, tokenLockFile(cacheKey)), ctx, {
    name: 'the token lock',
    pollMs: LOCK_POLL_MS,
    waitMs: LOCK_WAIT_MS,
    staleMs: LOCK_STALE_MS,
  });
  if (outcome.kind === 'unavailable') {
    ctx.trace?.(`cannot take the token lock (${outcome.why}): asking for a token without it`);
    return work();
  }
  if (outcome.kind === 'busy') {
    ctx.trace?.(`the token lock is still held by process ${outcome.pid}: asking for a token without it`);
    return work();
  }
  try {
    return await work();
  } finally {
    outcome.release();
  }
}
