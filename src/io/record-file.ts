import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, openSync, readSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { ByteJoiner } from '../util/byte-joiner.js';
import { refuseUntrustedFile } from '../util/regular-file.js';
import { outputError } from './io-streams.js';

/**
 * The rule every file svcadm writes follows, for a file it appends to: a path that exists must be a regular file
 * (not a folder, a FIFO, a device or a symbolic link, which would send the record elsewhere), else exit 2 before
 * anything is sent. One function, so that it can become the rule of src/util/regular-file.ts.
 */
export function refuseNonRegularFile(path: string, what: string): void {
  let kind: string | undefined;
  try {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) kind = 'a symbolic link';
    else if (stats.isDirectory()) kind = 'a folder';
    else if (!stats.isFile()) kind = 'not a regular file';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new UsageError(`cannot use ${neutralize(path)} as ${what}: ${(err as Error).message}`);
  }
  if (kind !== undefined) throw new UsageError(`refusing to write ${what} ${neutralize(path)}: it is ${kind}`);
}

/**
 * `events tail --output-file`: each event's NDJSON line appended as it is shown. Opened once, for appending only
 * (never truncated, 0600 when created, no symbolic link followed, never blocking on a FIFO put there since the
 * check); a write that fails is an OutputError (exit 74): the tail stops and says where to resume.
 */
export class RecordFile {
  readonly #fd: number;
  readonly #path: string;
  readonly #what: string;

  private constructor(fd: number, path: string, what: string) {
    this.#fd = fd;
    this.#path = path;
    this.#what = what;
  }

  /**
   * `what` and `flag` name the file in messages: `--output-file` by default; the dead-letter file is opened the same
   * way, under the same rules (regular, 0600 when created, the user's own: `refuseUntrustedFile`).
   */
  static open(path: string, what = 'the output file', flag = '--output-file'): RecordFile {
    if (path === '') throw new UsageError(`${flag} needs a path`);
    refuseNonRegularFile(path, what);
    // Read and write: after a failed write, what is really at the end of the file is read back (`#cutPartLine`).
    const flags =
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    let fd: number;
    try {
      fd = openSync(path, flags, 0o600);
    } catch (err) {
      throw new UsageError(`cannot open ${what} ${neutralize(path)}: ${(err as Error).message}`);
    }
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      throw new UsageError(`refusing to write ${what} ${neutralize(path)}: it is not a regular file`);
    }
    try {
      refuseUntrustedFile(stats, path, what);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new RecordFile(fd, path, what);
  }

  /**
   * Appends whole lines, every byte (a short write goes on where it stopped); on a failure, none of them, and the
   * error says what was cut back.
   */
  append(lines: readonly Uint8Array[]): void {
    if (lines.length === 0) return;
    // Lines that lie end to end in memory (the fast path's) are written as they are; the write is synchronous.
    const joiner = new ByteJoiner();
    for (const line of lines) joiner.add(line);
    const bytes = joiner.bytes();
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(this.#fd, bytes, at);
    } catch (err) {
      const failure = outputError(`${this.#what} ${neutralize(this.#path)}`, err);
      const cut = this.#removeFailedWrite(bytes.subarray(0, at));
      if (cut === 'left') failure.addHint('it may end in part of a line');
      else if (cut > 0) failure.addHint(`cut back to its last whole line (${cut} bytes of the failed write removed)`);
      throw failure;
    }
  }

  /**
   * After a write that failed with `written` on disk: removes what of it is at the end of the file, read back, so
   * that the file ends with the last whole line before it (the resume line starts after that line). Never past the
   * file's own end, whatever its size was before: another program may have truncated it meanwhile (logrotate's
   * copytruncate), and cutting "back" to an older size would grow it with NUL bytes. Returns how many bytes were
   * removed, or 'left' when they could not be.
   */
  #removeFailedWrite(written: Uint8Array): number | 'left' {
    const part = written.length;
    if (part === 0) return 0;
    try {
      const size = fstatSync(this.#fd).size;
      const n = Math.min(part, size);
      const end = Buffer.alloc(n);
      if (readSync(this.#fd, end, 0, n, size - n) !== n) return 'left';
      // Not the end of this write: someone else wrote after it; their bytes are not svcadm's to remove.
      if (!end.equals(written.subarray(written.length - n))) return 'left';
      ftruncateSync(this.#fd, size - n);
      return n;
    } catch {
      return 'left';
    }
  }

  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // Closing after a failed write can fail again: the failure was already reported.
    }
  }
}
