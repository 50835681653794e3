import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, openSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { ByteJoiner } from '../util/byte-joiner.js';
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
  /** Where the last whole line ends: a write that fails half-way is cut back to it. */
  #size: number;

  readonly #what: string;

  private constructor(fd: number, path: string, size: number, what: string) {
    this.#fd = fd;
    this.#path = path;
    this.#size = size;
    this.#what = what;
  }

  /** `what`: the file as messages name it (`the output file`, `the dead-letter file`). */
  static open(path: string, what = 'the output file'): RecordFile {
    if (path === '') throw new UsageError(`${what} needs a path`);
    refuseNonRegularFile(path, what);
    const flags =
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
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
    return new RecordFile(fd, path, stats.size, what);
  }

  /** Appends whole lines, every byte (a short write goes on where it stopped); on a failure, none of them. */
  append(lines: readonly Uint8Array[]): void {
    if (lines.length === 0) return;
    // Lines that lie end to end in memory (the fast path's) are written as they are; the write is synchronous.
    const joiner = new ByteJoiner();
    for (const line of lines) joiner.add(line);
    const bytes = joiner.bytes();
    try {
      let at = 0;
      while (at < bytes.length) at += writeSync(this.#fd, bytes, at);
      this.#size += bytes.length;
    } catch (err) {
      try {
        ftruncateSync(this.#fd, this.#size);
      } catch {
        // The record may end in part of a line; the failure below is what matters.
      }
      throw outputError(`${this.#what} ${neutralize(this.#path)}`, err);
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
