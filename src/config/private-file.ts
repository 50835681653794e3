import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { nodeCrypto } from '../util/node-crypto.js';
import { checkWritableTarget, openRegularFile, readOpenFile, untrusted, untrustedText } from '../util/regular-file.js';
import { shellWord } from '../util/shell-word.js';

const POSIX = process.platform !== 'win32';

/**
 * Refuses, as ssh does (exit 2), a folder or file of svcadm's that belongs to another user (root aside) or that
 * its group or others can write: whoever can write it can plant a token or a tenant. A path that does not exist
 * passes. `uid` is the user svcadm runs as.
 */
export function checkPrivatePath(path: string, uid: number | undefined = process.getuid?.()): void {
  if (!POSIX || uid === undefined) return;
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`, undefined, 'config_invalid');
  }
  const why = untrusted(stats, uid);
  if (why === undefined) return;
  const hint = why === 'writable by others' ? `run: chmod go-w ${shellWord(path)}` : undefined;
  throw new UsageError(`refusing to use ${path}: ${untrustedText(why)}`, hint, 'config_invalid');
}

/**
 * Creates the folder (and its missing parents) 0700 when it does not exist; an existing one is checked, never
 * changed: svcadm does not chmod a folder it did not create.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkPrivatePath(dir);
}

/** Reads a JSON file of svcadm's from its folder, both checked first; a missing file is `undefined`. */
export function readPrivateJson(path: string): unknown {
  checkPrivatePath(dirname(path));
  checkPrivatePath(path);
  return readJsonFile(path);
}

/** svcadm's own JSON files (profiles, tokens) are small; a larger one is not read whole. */
const MAX_JSON_FILE_BYTES = 4 * 1024 * 1024;
const BOM = '\uFEFF';

/** Reads a JSON file (a UTF-8 BOM allowed); a missing file is `undefined`, a corrupt one a clear error. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    const fd = openRegularFile(path);
    if (fd === undefined) return undefined;
    const bytes = readOpenFile(fd, MAX_JSON_FILE_BYTES);
    if (bytes.length > MAX_JSON_FILE_BYTES) {
      throw new UsageError(
        `${path} is larger than ${MAX_JSON_FILE_BYTES / (1024 * 1024)} MB`,
        'repair or delete the file',
      );
    }
    text = bytes.toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`, undefined, 'file_unreadable');
  }
  try {
    return JSON.parse(text.startsWith(BOM) ? text.slice(1) : text) as unknown;
  } catch {
    throw new UsageError(`${path} is not valid JSON`, 'repair or delete the file', 'config_invalid');
  }
}

/** A temporary file left by a write that was killed is removed once it is this old (a write takes milliseconds). */
const STALE_TEMPORARY_MS = 60_000;
const cleaned = new Set<string>();

function temporaryPrefix(path: string): string {
  return `.${basename(path)}.`;
}

/** Removes the temporary files of earlier writes of `path` that were never renamed (the writer died). */
function removeStaleTemporaries(path: string): void {
  if (cleaned.has(path)) return;
  cleaned.add(path);
  const dir = dirname(path);
  const prefix = temporaryPrefix(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const temporary = join(dir, name);
    try {
      const stats = lstatSync(temporary);
      if (stats.isFile() && Date.now() - stats.mtimeMs > STALE_TEMPORARY_MS) unlinkSync(temporary);
    } catch {
      // Gone already, or not ours to remove: either way nothing to do.
    }
  }
}

/**
 * Writes a file mode 0600 without ever following a symlink: the text goes to a new temporary file in the same
 * folder (created exclusively, so nothing can be waiting there), which is then renamed over `path`, which must be
 * missing or a regular file (`checkWritableTarget`); a reader sees the old file or the new one, never half of it.
 * A refusal is a UsageError; a failure of the file system (EROFS, ENOSPC) is thrown as it is, for the caller to
 * say what it means there.
 */
export function writePrivateFile(path: string, text: string, what?: string): void {
  checkWritableTarget(path, what);
  removeStaleTemporaries(path);
  const temporary = join(
    dirname(path),
    `${temporaryPrefix(path)}${process.pid}-${nodeCrypto().randomBytes(4).toString('hex')}.tmp`,
  );
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Looked at again just before: what appeared there meanwhile is not replaced either.
    checkWritableTarget(path, what);
    renameSync(temporary, path);
  } catch (err) {
    try {
      unlinkSync(temporary);
    } catch {
      // Already renamed or never created.
    }
    throw err;
  }
}

/**
 * Throws now if `path` could not be written later: it is not a regular file (a UsageError), or its folder is missing
 * or not writable (the file system's error).
 */
export function checkWritable(path: string, what?: string): void {
  checkWritableTarget(path, what);
  const probe = join(dirname(path), `${temporaryPrefix(path)}${process.pid}-probe.tmp`);
  closeSync(openSync(probe, 'wx', 0o600));
  unlinkSync(probe);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
