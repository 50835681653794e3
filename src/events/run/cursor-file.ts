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

/** Where a tail starts again: after a cursor, or, where it reached none, from a time (`YYYY-MM-DDTHH:MM:SSZ`). */
export type SavedStart = { readonly cursor: string } | { readonly since: string };

const SINCE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * Where a lone tail's cursor file says to start: a bare cursor, or `{"since":"…"}` when the tail that wrote it reached
 * none (docs/decisions/2026-11-28-resume-from-the-start.md); undefined when there is no such file (or it is empty).
 */
export function readCursorFile(path: string): SavedStart | undefined {
  const text = readCursorText(path, CURSOR_FILE_MAX_BYTES);
  if (text === null) return undefined;
  const saved = text?.trim();
  if (saved === '') return undefined;
  if (saved?.startsWith('{"cursors":')) {
    throw new UsageError(
      `the cursor file ${path} holds a cursor per profile, from a tail across tenants`,
      'run it with the same --profiles, or give another path',
      'file_unreadable',
    );
  }
  if (saved?.startsWith('{')) {
    const since = (parseJson(saved) as { since?: unknown } | undefined)?.since;
    if (typeof since === 'string' && SINCE.test(since)) return { since };
  } else if (saved !== undefined && isCursor(saved)) return { cursor: saved };
  throw new UsageError(
    `the cursor file ${path} does not hold a cursor (${CURSOR_RULE})`,
    'delete it, or start with --from or --since',
    'file_unreadable',
  );
}

/** A lone tail's cursor file: the cursor, or the time to start from where it reached none. */
export function cursorFileText(start: SavedStart): string {
  return 'cursor' in start ? start.cursor : JSON.stringify({ since: start.since });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

  /**
   * Where the run starts, written at once: a tail stopped (or killed) before it reached a position resumes from
   * there. It does not count against the interval: the first position is written as soon as it comes.
   */
  begin(text: string): void {
    this.#pending = text;
    void this.#write();
    this.#lastWrite = 0;
  }

  /** The file's next text (`cursorFileText`, `tenantCursorText`): written now, or within the interval. */
  update(text: string): void {
    if (this.#failure) throw this.#failure;
    this.#pending = text;
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
    const text = this.#pending;
    if (text === undefined || text === this.#written || this.#failure) return;
    this.#lastWrite = this.clock.now();
    this.#written = text;
    try {
      writePrivateFile(this.path, `${text}\n`, WHAT);
    } catch (err) {
      const why =
        err instanceof UsageError ? err.message : `cannot write ${WHAT} ${this.path}: ${(err as Error).message}`;
      this.#failure = new CursorFileError(why);
    }
  }
}

/** A merged tail's cursor file (`--profiles`) holds at most this much: a cursor for each of many tenants. */
const TENANT_CURSOR_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Where each tenant starts again, by profile (records without a prototype): a cursor, or a time where it reached
 * none. A file holds the tenants of every run that wrote it: a run rewrites its own and keeps the others.
 */
export interface TenantStarts {
  readonly cursors: Readonly<Record<string, string>>;
  readonly since: Readonly<Record<string, string>>;
}

/** A merged tail's cursor file: `{"cursors":{"dev":"…"},"since":{"prod":"2026-…Z"}}` (`since` left out when empty). */
export function tenantCursorText(starts: TenantStarts): string {
  const since = Object.keys(starts.since).length > 0 ? { since: { ...starts.since } } : {};
  return JSON.stringify({ cursors: { ...starts.cursors }, ...since });
}

/**
 * Where the tenants of a merged tail's cursor file start (cli.md "Many tenants", round 5): undefined when there is no
 * such file (or it is empty). A file that holds anything else (a single tenant's cursor) is refused: exit 2.
 */
export function readTenantCursorFile(path: string): TenantStarts | undefined {
  const text = readCursorText(path, TENANT_CURSOR_FILE_MAX_BYTES);
  if (text === null) return undefined;
  if (text?.trim() === '') return undefined;
  const refuse = () =>
    new UsageError(
      `the cursor file ${path} does not hold a cursor per profile (${CURSOR_RULE} each)`,
      'a tail across tenants keeps its own file: give another path, or start with --since',
      'file_unreadable',
    );
  const parsed = text === undefined ? undefined : (parseJson(text) as { cursors?: unknown; since?: unknown });
  const cursors = entries(parsed?.cursors, isCursor);
  const since = parsed?.since === undefined ? Object.create(null) : entries(parsed.since, (t) => SINCE.test(t));
  if (cursors === undefined || since === undefined) throw refuse();
  return { cursors, since };
}

/** A JSON object of strings that pass `valid`, as a record without a prototype; undefined for anything else. */
function entries(value: unknown, valid: (text: string) => boolean): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const found: Record<string, string> = Object.create(null);
  for (const [key, text] of Object.entries(value)) {
    if (typeof text !== 'string' || !valid(text)) return undefined;
    found[key] = text;
  }
  return found;
}
