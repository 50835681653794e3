import { closeSync, lstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { UsageError } from '../errors.js';
import { openRegularFile, readOpenFile } from '../util/regular-file.js';

/**
 * A lock file beside svcadm's state: created exclusively, holding `pid host since`, removed by its holder. A lock
 * whose holder died on this machine, or that is older than `staleMs`, is left over and taken over; waiting for a
 * live holder is bounded by `waitMs`. The callers decide what a lock they cannot have means (token-lock.ts goes on
 * without it, the profile store gives up).
 */
export interface LockContext {
  clock: Clock;
  /** Waits `ms` (Ctrl-C ends the wait by throwing). */
  sleep(ms: number): Promise<void>;
  trace?: ((line: string) => void) | undefined;
}

export interface LockRules {
  /** How the lock is named in `--debug` lines (`the token lock`). */
  name: string;
  /** How often a waiting process looks at the lock again. */
  pollMs: number;
  waitMs: number;
  staleMs: number;
}

export type LockOutcome =
  | { kind: 'held'; release: () => void }
  /** Still held by a live process after `waitMs`. */
  | { kind: 'busy'; pid: number | undefined }
  /** The lock cannot be taken here at all: a read-only or full folder, or what is at its path is not ours. */
  | { kind: 'unavailable'; why: string };

interface Holder {
  pid: number;
  host: string;
  since: number;
}

/** The holder's line; undefined while it is being written; 'foreign' for what is no lock file of ours. */
function readHolder(path: string): Holder | undefined | 'foreign' {
  let text: string;
  try {
    const fd = openRegularFile(path);
    if (fd === undefined) return undefined;
    text = readOpenFile(fd, 256).toString('utf8');
  } catch (err) {
    return err instanceof UsageError ? 'foreign' : undefined;
  }
  const [pid, host, since] = text.trim().split(' ');
  const holder = { pid: Number(pid), host: host ?? '', since: Number(since) };
  return Number.isInteger(holder.pid) && Number.isFinite(holder.since) ? holder : undefined;
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

/**
 * True when the lock is left over: its holder died on this machine, or it is too old. A lock that is gone is not
 * left over: it was released, and the next `tryLock` may find a new holder's.
 */
function isStale(path: string, holder: Holder | undefined, now: number, staleMs: number): boolean {
  if (holder === undefined) {
    try {
      return Date.now() - lstatSync(path).mtimeMs > UNREADABLE_STALE_MS;
    } catch {
      return false;
    }
  }
  if (now - holder.since > staleMs) return true;
  return holder.host === hostname() && !isAlive(holder.pid);
}

function sameHolder(a: Holder | undefined, b: Holder | undefined | 'foreign'): boolean {
  if (a === undefined || b === undefined || b === 'foreign') return a === b;
  return a.pid === b.pid && a.host === b.host && a.since === b.since;
}

/**
 * Removes the lock judged left over, only if it is still the one judged: between the judgement and the removal
 * its holder may have released it and another process taken it (a holder judged dead had just exited after its
 * release), and removing that one would let two processes in at once (parallel `profiles add` lost a profile).
 */
function removeStale(path: string, judged: Holder | undefined): void {
  if (!sameHolder(judged, readHolder(path))) return;
  if (judged === undefined && !isStale(path, undefined, 0, 0)) return;
  removeQuietly(path);
}

type Attempt = { kind: 'taken'; content: string } | { kind: 'exists' } | { kind: 'failed'; why: string };

function tryLock(path: string, now: number): Attempt {
  const content = `${process.pid} ${hostname()} ${now}\n`;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { kind: 'exists' };
    return { kind: 'failed', why: (err as Error).message };
  }
  try {
    writeSync(fd, content);
    closeSync(fd);
    return { kind: 'taken', content };
  } catch (err) {
    // A full disk: an empty lock left behind would make every later run wait for it.
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    removeQuietly(path);
    return { kind: 'failed', why: (err as Error).message };
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Only our own lock: a waiter may have taken it over as stale meanwhile. */
function releaser(path: string, content: string): () => void {
  return () => {
    const holder = readHolder(path);
    if (holder !== 'foreign' && holder !== undefined && `${holder.pid} ${holder.host} ${holder.since}\n` === content) {
      removeQuietly(path);
    }
  };
}

export async function acquireLock(path: string, ctx: LockContext, rules: LockRules): Promise<LockOutcome> {
  const started = ctx.clock.now();
  for (;;) {
    const attempt = tryLock(path, ctx.clock.now());
    if (attempt.kind === 'taken') return { kind: 'held', release: releaser(path, attempt.content) };
    if (attempt.kind === 'failed') return { kind: 'unavailable', why: attempt.why };
    const holder = readHolder(path);
    if (holder === 'foreign') return { kind: 'unavailable', why: `${path} is not a lock file of svcadm's` };
    if (isStale(path, holder, ctx.clock.now(), rules.staleMs)) {
      ctx.trace?.(`removing ${rules.name} left over by process ${holder?.pid ?? '?'}`);
      removeStale(path, holder);
      continue;
    }
    if (ctx.clock.now() - started >= rules.waitMs) return { kind: 'busy', pid: holder?.pid };
    await ctx.sleep(rules.pollMs);
  }
}
