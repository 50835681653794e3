import { createReadStream, rmSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Env } from '../context.js';
import { OutputError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';

// The Printer and the output across tenants reach this module at every start: node:fs/promises and node:readline,
// needed only once a run spools, are loaded then (a one-tenant command loads neither).
const fsPromises = () => process.getBuiltinModule('node:fs/promises');
const readline = () => process.getBuiltinModule('node:readline');

/** Why a temporary file could not be made or written, as a person reads it. */
const SPOOL_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such folder',
  ENOTDIR: 'not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EFBIG: 'the file is too large',
};

/**
 * The folder temporary files go in: `TMPDIR` (then `TMP`, `TEMP`) of svcadm's environment, as `os.tmpdir()` reads
 * the process's own on POSIX; Windows keeps `os.tmpdir()`.
 */
export function tempRoot(env: Env): string {
  if (process.platform === 'win32') return tmpdir();
  const dir = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

/** The one line for a temporary folder that cannot hold the results: exit 74, as any output that cannot be written. */
function spoolError(root: string, err: unknown): OutputError {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code !== undefined && SPOOL_ERRORS[code] ? `${SPOOL_ERRORS[code]} (${code})` : String(err);
  return new OutputError(
    `cannot keep the tenants' results in the temporary folder ${neutralize(root)}: ${neutralize(why)}`,
  ).addHint('set TMPDIR to a writable folder with room for the output');
}

/**
 * A private folder (0700, `mkdtemp`) of temporary files (0600) where each tenant's result waits until it is printed
 * in profile order (docs/decisions/2026-11-28-tenant-results-spooled.md). Removed by `remove()` on every way out of
 * the run, and at the process's exit should a way out skip it.
 */
export class SpoolFolder {
  /** The first failure to write a file: the run reports it instead of its output. */
  failure: OutputError | undefined;
  readonly #root: string;
  readonly #dir: string;
  readonly #onExit: () => void;

  private constructor(root: string, dir: string) {
    this.#root = root;
    this.#dir = dir;
    this.#onExit = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', this.#onExit);
  }

  /** A new folder under `tempRoot(env)`; its failure is an OutputError (exit 74) naming the folder. */
  static async create(env: Env): Promise<SpoolFolder> {
    const root = tempRoot(env);
    try {
      return new SpoolFolder(root, await fsPromises().mkdtemp(join(root, 'svcadm-tenants-')));
    } catch (err) {
      throw spoolError(root, err);
    }
  }

  /** A new file of the folder, to write. */
  writer(name: string): SpoolWriter {
    return new SpoolWriter(join(this.#dir, name), (err) => {
      this.failure ??= spoolError(this.#root, err);
    });
  }

  /** Removes the folder and everything in it. */
  async remove(): Promise<void> {
    process.removeListener('exit', this.#onExit);
    await fsPromises()
      .rm(this.#dir, { recursive: true, force: true })
      .catch(() => {});
  }
}

/**
 * A temporary file as a writable stream (0600, created new). A failed write never fails the writer (the tenant
 * writing did nothing wrong): it is handed to `onError` once, and what follows is dropped.
 */
export class SpoolWriter extends Writable {
  readonly path: string;
  #file: FileHandle | undefined;
  #failed = false;
  /** Bytes written. */
  bytes = 0;

  constructor(
    path: string,
    private readonly onError: (err: unknown) => void,
  ) {
    super({ decodeStrings: false });
    this.path = path;
  }

  override _construct(done: (err?: Error | null) => void): void {
    fsPromises()
      .open(this.path, 'wx', 0o600)
      .then(
        (file) => {
          this.#file = file;
          done();
        },
        (err: unknown) => {
          this.#fail(err);
          done();
        },
      );
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    const file = this.#file;
    if (file === undefined || this.#failed) {
      done();
      return;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    file.write(bytes).then(
      () => {
        this.bytes += bytes.length;
        done();
      },
      (err: unknown) => {
        this.#fail(err);
        done();
      },
    );
  }

  override _final(done: (err?: Error | null) => void): void {
    this.#closeFile().then(() => done());
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.#closeFile().then(() => done(err));
  }

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch((err: unknown) => this.#fail(err));
  }

  #fail(err: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.onError(err);
  }
}

/** Whether `stream` is a tenant's temporary file: what is written there is discarded should the tenant fail. */
export function isSpool(stream: unknown): stream is SpoolWriter {
  return stream instanceof SpoolWriter;
}

/** A temporary file's text in pieces (about 64 KB), never cut inside a character. */
export async function* spooledText(path: string): AsyncGenerator<string> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  for await (const piece of stream) yield piece as string;
}

/** A temporary file's lines, one at a time. */
export async function* spooledLines(path: string): AsyncGenerator<string> {
  const lines = readline().createInterface({
    input: createReadStream(path, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  for await (const line of lines) yield line;
}

/** Removes a temporary file that is no longer needed (its folder goes at the end in any case). */
export async function dropSpooled(path: string): Promise<void> {
  await fsPromises()
    .rm(path, { force: true })
    .catch(() => {});
}
