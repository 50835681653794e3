import { closeSync, fstatSync, lstatSync } from 'node:fs';
import type { Clock, Timer } from '../../clock.js';
import { checkWritable, writePrivateFile } from '../../config/private-file.js';
import { CURSOR_MAX, CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import { CliError, UsageError } from '../../errors.js';
import { openRegularFile, readOpenFile, refuseUntrustedFile } from '../../util/regular-file.js';

/** A cursor and the white space around it fit in this; a longer file holds no cursor and is not read further. */
const CURSOR_FILE_MAX_BYTES = CURSOR_MAX * 4;
const WHAT = 'the cursor file';

/** The text of a file of at most `limit` bytes; undefined for a longer one, of which no more than that is read. */
function readUpTo(path: string, limit: number): string | undefined {
  const fd = openRegularFile(path, { what: WHAT });
  if (fd === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
  try {
    refuseUntrustedFile(fstatSync(fd), path, WHAT);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  const bytes = readOpenFile(fd, limit);
  return bytes.length > limit ? undefined : bytes.toString('utf8');
}

/** A cursor file's text (undefined: longer than `limit`), or null when there is no such file; unreadable: exit 2. */
function readCursorText(path: string, limit: number): string | undefined | null {
  try {
    return readUpTo(path, limit);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `cannot read the cursor file ${path}: ${(err as Error).message}`,
      undefined,
      'file_unreadable',
    );
  }
}

/** The cursor saved in `path`, or undefined when there is no such file (or it is empty). */
export function readCursorFile(path: string): string | undefined {
  const text = readCursorText(path, CURSOR_FILE_MAX_BYTES);
  if (text === null) return undefined;
  const cursor = text?.trim();
  if (cursor === '') return undefined;
  if (cursor?.startsWith('{"cursors":')) {
    throw new UsageError(
      `the cursor file ${path} holds a cursor per profile, from a tail across tenants`,
      'run it with the same --profiles, or give another path',
      'file_unreadable',
    );
  }
  if (cursor === undefined || !isCursor(cursor)) {
    throw new UsageError(
      `the cursor file ${path} does not hold a cursor (${CURSOR_RULE})`,
      'delete it, or start with --from or --since',
      'file_unreadable',
    );
  }
  return cursor;
}

/**
 * The cursor file could not be written once events were printed: exit 74 (output that could not be written, as for
 * stdout), and the tail says where to resume, since the file no longer does.
 */
export class CursorFileError extends CliError {
  constructor(message: string) {
    super('output', message, { reason: 'cursor_file_failed' });
  }
}

/**
 * Keeps the cursor file current without a write per event: at most one atomic write (temporary file and rename) per
 * interval, a trailing write when the stream goes quiet, and `flush()` for the last position on the way out.
 */
export class CursorFileWriter {
  #pending: string | undefined;
  #written: string | undefined;
  #lastWrite = 0;
  #timer: Timer | undefined;
  #failure: Error | undefined;

  constructor(
    readonly path: string,
    private readonly clock: Clock,
    private readonly intervalMs = 1000,
  ) {}

  /**
   * Fails before streaming, rather than after the first events, when the file could not be written, or belongs to
   * another user or is writable by others (`refuseUntrustedFile`), whether it is read or not (`--from`).
   */
  check(): void {
    try {
      checkWritable(this.path, WHAT);
      const stats = lstatSync(this.path, { throwIfNoEntry: false });
      if (stats) refuseUntrustedFile(stats, this.path, WHAT);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(
        `cannot write the cursor file ${this.path}: ${(err as Error).message}`,
        undefined,
        'file_unwritable',
      );
    }
  }

  update(cursor: string): void {
    if (this.#failure) throw this.#failure;
    this.#pending = cursor;
    const sinceWrite = this.clock.now() - this.#lastWrite;
    if (sinceWrite >= this.intervalMs) {
      void this.#write();
      return;
    }
    this.#timer ??= this.clock.setTimeout(() => void this.#write(), this.intervalMs - sinceWrite);
  }

  async flush(): Promise<void> {
    await this.#write();
    if (this.#failure) throw this.#failure;
  }

  async #write(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    const cursor = this.#pending;
    if (cursor === undefined || cursor === this.#written || this.#failure) return;
    this.#lastWrite = this.clock.now();
    this.#written = cursor;
    try {
      writePrivateFile(this.path, `${cursor}\n`, WHAT);
    } catch (err) {
      const why =
        err instanceof UsageError ? err.message : `cannot write ${WHAT} ${this.path}: ${(err as Error).message}`;
      this.#failure = new CursorFileError(why);
    }
  }
}

/** A merged tail's cursor file (`--profiles`) holds at most this much: a cursor for each of many tenants. */
const TENANT_CURSOR_FILE_MAX_BYTES = 1024 * 1024;

/** The text of one tenant cursor per profile, as a merged tail writes it: `{"cursors":{"dev":"…","prod":"…"}}`. */
export function tenantCursorText(cursors: Readonly<Record<string, string>>): string {
  return JSON.stringify({ cursors });
}

/**
 * The cursors a merged tail saved in `path`, one per profile (cli.md "Many tenants"): undefined when there is no such
 * file (or it is empty). A file that holds anything else (a single tenant's cursor) is refused: exit 2.
 */
export function readTenantCursorFile(path: string): Record<string, string> | undefined {
  const text = readCursorText(path, TENANT_CURSOR_FILE_MAX_BYTES);
  if (text === null) return undefined;
  if (text?.trim() === '') return undefined;
  const refuse = () =>
    new UsageError(
      `the cursor file ${path} does not hold a cursor per profile (${CURSOR_RULE} each)`,
      'a tail across tenants keeps its own file: give another path, or start with --since',
      'file_unreadable',
    );
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch {
    throw refuse();
  }
  const cursors = (parsed as { cursors?: unknown } | undefined)?.cursors;
  if (typeof cursors !== 'object' || cursors === null || Array.isArray(cursors)) throw refuse();
  const found: Record<string, string> = Object.create(null);
  for (const [profile, cursor] of Object.entries(cursors)) {
    if (typeof cursor !== 'string' || !isCursor(cursor)) throw refuse();
    found[profile] = cursor;
  }
  return found;
}
