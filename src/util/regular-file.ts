import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { UsageError } from '../errors.js';
import { shellWord } from './shell-word.js';

/**
 * **The** rule that svcadm reads and writes nothing but regular files: a symbolic link, a folder, a device, a FIFO or
 * a socket is refused (exit 2), for svcadm's own state (`config/`) and for the files a user names (`--input`).
 */

/** What is at a path that is not a regular file, in words. */
function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notRegular(verb: 'read' | 'write', path: string, stats: Stats, what: string | undefined): UsageError {
  const subject = what === undefined ? path : `${what} ${path}`;
  if (stats.isSymbolicLink()) {
    return new UsageError(
      `refusing to ${verb} ${subject}: it is a symbolic link, which svcadm never follows nor replaces`,
      'give the path of the file itself',
    );
  }
  return new UsageError(`refusing to ${verb} ${subject}: it is ${kindOf(stats)}, not a regular file`);
}

const NO_FOLLOW = fsConstants.O_NOFOLLOW ?? 0;
/** Opening a FIFO without a writer (or a device) must not block: svcadm would hang where no signal reaches it. */
const NO_BLOCK = fsConstants.O_NONBLOCK ?? 0;

/**
 * Opens a file for reading only when it is a regular file: a FIFO, a device or a socket is refused (exit 2) without
 * blocking; a symbolic link is refused too unless `follow` (a file the user names to be read, such as `--input`).
 * A missing file is `undefined`. Checked on the open file, so nothing can be swapped in between.
 */
export function openRegularFile(path: string, options: { follow?: boolean; what?: string } = {}): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | NO_BLOCK | (options.follow ? 0 : NO_FOLLOW));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' && !options.follow) throw notRegular('read', path, lstatSync(path), options.what);
    throw err;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw notRegular('read', path, stats, options.what);
  }
  return fd;
}

/** At most `limit` bytes of an open file (one more tells the caller it is longer); the file is closed. */
export function readOpenFile(fd: number, limit: number): Buffer {
  try {
    // Sized by the file, grown if it grows, never past the bound: a 4 MiB bound allocated (and zeroed) for each read
    // of a small file cost a run across 20 tenants 160 MB and 40 ms (docs/bench-log.md, 2026-11-26).
    let buffer = Buffer.allocUnsafe(Math.min(limit + 1, fstatSync(fd).size + 1));
    let length = 0;
    while (length <= limit) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(limit + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * The one rule for every file svcadm writes: a path that exists and is not a regular file (a device, a FIFO, a
 * folder, a socket) is refused, and so is a symbolic link: svcadm never writes through one nor replaces it.
 * `what` names the file in the message (`the cursor file`).
 */
export function checkWritableTarget(path: string, what?: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!stats.isFile()) throw notRegular('write', path, stats, what);
}

/** Why a file or folder is not trusted: another user owns it, or its group or others can write it. */
export type Untrusted = { readonly owner: number } | 'writable by others';

/**
 * **The** rule of whose files svcadm trusts, as ssh's StrictModes: a file (or folder) belongs to the user svcadm runs
 * as, or to root, and neither its group nor others can write it. Else whoever else can write it chooses what svcadm
 * reads (a cursor) or where its records go (root's tail appending a tenant's events to another user's 0666 file).
 * `uid` is the user svcadm runs as; on Windows there is no such rule.
 */
export function untrusted(stats: Pick<Stats, 'uid' | 'mode'>, uid = process.getuid?.()): Untrusted | undefined {
  if (uid === undefined) return undefined;
  if (stats.uid !== uid && stats.uid !== 0) return { owner: stats.uid };
  return (stats.mode & 0o022) !== 0 ? 'writable by others' : undefined;
}

/** The end of a refusal of an untrusted path, after `refusing to use <path>: `. */
export function untrustedText(why: Untrusted): string {
  return why === 'writable by others'
    ? 'it is writable by its group or others'
    : `it belongs to user ${why.owner}, not to you`;
}

/**
 * Refuses (exit 2, `file_unsafe`) a file svcadm reads or appends to for the user (the cursor file, `--output-file`,
 * the dead-letter file) that another user owns or can write. `stats` are those of the open file where there is one,
 * so that nothing can be swapped in between. `what` names it (`the output file`).
 */
export function refuseUntrustedFile(stats: Pick<Stats, 'uid' | 'mode'>, path: string, what: string): void {
  const why = untrusted(stats);
  if (why === undefined) return;
  const hint = why === 'writable by others' ? `run: chmod go-w ${shellWord(path)}` : 'use a file of your own';
  throw new UsageError(`refusing to use ${what} ${path}: ${untrustedText(why)}`, hint, 'file_unsafe');
}
