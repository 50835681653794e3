import { readFileSync } from 'node:fs';
import { writePrivateFile } from '../config/private-file.js';
import { CliError, UsageError } from '../errors.js';

export const CURSOR_MAX = 1024;

/** The cursor saved in `path`, or undefined when there is no such file (or it is empty). */
export function readCursorFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the cursor file ${path}: ${(err as Error).message}`);
  }
  const cursor = text.trim();
  if (cursor === '') return undefined;
  if (cursor.length > CURSOR_MAX || /\s/.test(cursor)) {
    throw new UsageError(
      `the cursor file ${path} does not hold a cursor`,
      'delete it, or start with --from or --since',
    );
  }
  return cursor;
}

/**
 * Keeps the cursor file current without a write per event: at most one atomic write (temporary file and rename) per
 * interval, a trailing write when the stream goes quiet, and `flush()` for the last position on the way out.
 */
export class CursorFileWriter {
  #pending: string | undefined;
  #written: string | undefined;
  #lastWrite = 0;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;

  constructor(
    readonly path: string,
    private readonly now: () => number,
    private readonly intervalMs = 1000,
  ) {}

  update(cursor: string): void {
    if (this.#failure) throw this.#failure;
    this.#pending = cursor;
    if (this.now() - this.#lastWrite >= this.intervalMs) {
      void this.#write();
      return;
    }
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.#write(), this.intervalMs - (this.now() - this.#lastWrite));
      this.#timer.unref();
    }
  }

  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#write();
    if (this.#failure) throw this.#failure;
  }

  async #write(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const cursor = this.#pending;
    if (cursor === undefined || cursor === this.#written || this.#failure) return;
    this.#lastWrite = this.now();
    this.#written = cursor;
    try {
      await writePrivateFile(this.path, `${cursor}\n`);
    } catch (err) {
      this.#failure = new CliError(`cannot write the cursor file ${this.path}: ${(err as Error).message}`, 2);
    }
  }
}
