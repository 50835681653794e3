import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { UsageError } from '../errors.js';

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
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length <= limit) {
      const n = readSync(fd, buffer, length, limit + 1 - length, null);
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
