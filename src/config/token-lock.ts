import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { ensurePrivateDir } from './private-file.js';

/**
 * Parallel cold starts (a CI matrix, `xargs -P`) share one token request: the first process takes a lock file in
 * the config folder, asks for a token and caches it; the others wait for the lock and then find the token in the
 * cache. Token issuance is metered, and 20 jobs used to make 20 requests.
 */
export const TOKEN_LOCK_FILE = 'token-request.lock';
/** How often a waiting process looks at the lock again. */
export const LOCK_POLL_MS = 100;
/** Waiting is bounded: past this, a process asks for its own token rather than wait on a holder that hangs. */
export const LOCK_WAIT_MS = 30_000;
/** A lock older than this is taken for left over, whoever holds it (a token request takes seconds at most). */
export const LOCK_STALE_MS = 120_000;

export interface LockContext {
  clock: Clock;
  /** Waits `ms` (Ctrl-C ends the wait by throwing). */
  sleep(ms: number): Promise<void>;
  trace?: ((line: string) => void) | undefined;
}

interface Holder {
  pid: number;
  host: string;
  since: number;
}

function readHolder(path: string): Holder | undefined {
  try {
    const [pid, host, since] = readFileSync(path, 'utf8').trim().split(' ');
    const holder = { pid: Number(pid), host: host ?? '', since: Number(since) };
    return Number.isInteger(holder.pid) && Number.isFinite(holder.since) ? holder : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file without a holder's line is being written, unless it has been like that for this long. */
const UNREADABLE_STALE_MS = 5_000;

/** True when the lock is left over: its holder died on this machine, or it is too old. */
function isStale(path: string, holder: Holder | undefined, now: number): boolean {
  if (holder === undefined) {
    try {
      return Date.now() - statSync(path).mtimeMs > UNREADABLE_STALE_MS;
    } catch {
      return true;
    }
  }
  if (now - holder.since > LOCK_STALE_MS) return true;
  return holder.host === hostname() && !isAlive(holder.pid);
}

function tryLock(path: string, now: number): string | undefined {
  const content = `${process.pid} ${hostname()} ${now}\n`;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return content;
}

/**
 * Runs `work` holding the token lock of `dir`: at once when it is free, after its holder is done when it is held,
 * after removing it when it is left over, and without it once LOCK_WAIT_MS have passed.
 */
export async function withTokenLock<T>(dir: string, ctx: LockContext, work: () => Promise<T>): Promise<T> {
  ensurePrivateDir(dir);
  const path = join(dir, TOKEN_LOCK_FILE);
  const started = ctx.clock.now();
  let content: string | undefined;
  for (;;) {
    content = tryLock(path, ctx.clock.now());
    if (content !== undefined) break;
    const holder = readHolder(path);
    if (isStale(path, holder, ctx.clock.now())) {
      ctx.trace?.(`removing the token lock left over by process ${holder?.pid ?? '?'}`);
      try {
        unlinkSync(path);
      } catch {
        // Another waiter removed it first.
      }
      continue;
    }
    if (ctx.clock.now() - started >= LOCK_WAIT_MS) {
      ctx.trace?.(`the token lock is still held by process ${holder?.pid}: asking for a token without it`);
      return work();
    }
    await ctx.sleep(LOCK_POLL_MS);
  }
  try {
    return await work();
  } finally {
    // Only our own lock: a waiter may have taken it over as stale meanwhile.
    try {
      if (readFileSync(path, 'utf8') === content) unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
}
