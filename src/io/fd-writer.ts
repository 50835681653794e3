import { fstatSync, write } from 'node:fs';
import type { OutStream } from '../context.js';

/**
 * Writes to a file descriptor from libuv's thread pool, in order, one write at a time: the write system call then
 * runs beside svcadm's own work instead of between its batches. Node writes a pipe from the main thread, as much as
 * the pipe holds (64 KB) each time the event loop comes round, so a stream that keeps the main thread busy
 * (`events tail | cat`) stalled on its own output: an eighth of the run
 * (docs/decisions/2026-11-24-stdout-from-the-thread-pool.md).
 *
 * A pipe stays non-blocking: a write takes what the pipe holds, and when it is full the rest is handed to the stream,
 * whose writes wait for room on the event loop. A write that blocked in the thread pool could never be abandoned, and
 * Node's exit waits for the thread pool: with a reader that reads nothing, no stop signal ended svcadm
 * (docs/decisions/2026-11-28-stop-with-a-stalled-reader.md).
 */
export class FdWriter {
  readonly #fd: number;
  /** Settles when every write queued so far is done; never rejects (the first failure is kept in #failure). */
  #done: Promise<void>;
  #queued = 0;
  #failure: Error | undefined;
  readonly #onFailure: (err: Error) => void;

  /** The stream of the descriptor: it takes the rest of a write when a non-blocking pipe is full. */
  readonly #stream: OutStream;

  /**
   * `before`: what must be written first (the stream's own queue); `onFailure`: called once, with the first error;
   * `stream`: the descriptor's own stream.
   */
  constructor(fd: number, stream: OutStream, before: Promise<void>, onFailure: (err: Error) => void) {
    this.#fd = fd;
    this.#stream = stream;
    this.#onFailure = onFailure;
    this.#done = before.catch((err: unknown) => this.#fail(err));
  }

  /** Queues `bytes`; returns a promise to wait for when more than `queueBytes` are queued (as `writeOut`). */
  write(bytes: Uint8Array, queueBytes: number): Promise<void> | undefined {
    if (this.#failure) return Promise.reject(this.#failure);
    this.#queued += bytes.byteLength;
    this.#done = this.#done.then(() => this.#writeAll(bytes)).catch((err: unknown) => this.#fail(err));
    return this.#queued > queueBytes ? this.settled() : undefined;
  }

  /** Resolves once every write queued so far is done; rejects with the first failure. */
  settled(): Promise<void> {
    return this.#done.then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  #writeAll(bytes: Uint8Array): Promise<void> {
    if (this.#failure) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        this.#queued -= bytes.byteLength;
        resolve();
      };
      const from = (offset: number) =>
        write(this.#fd, bytes, offset, bytes.byteLength - offset, null, (err, written) => {
          if (err?.code === 'EAGAIN') {
            // The pipe is full: the stream writes the rest as room comes (its own failure fails it, as below).
            return this.#stream.write(bytes.subarray(offset), (failed) => {
              if (!failed) return done();
              this.#fail(failed);
              process.nextTick(reject, failed);
            });
          }
          if (err) {
            // The stream fails first (its 'error' comes on the next tick; an EPIPE then ends the run quietly, as a
            // failed write of its own would), the writes waiting on this one after it.
            this.#fail(err);
            return process.nextTick(reject, err);
          }
          if (offset + written < bytes.byteLength) return from(offset + written);
          done();
        });
      from(0);
    });
  }

  #fail(err: unknown): void {
    if (this.#failure) return;
    this.#failure = err instanceof Error ? err : new Error(String(err));
    this.#onFailure(this.#failure);
  }
}

type PipeHandle = { setBlocking?(blocking: boolean): number };

/**
 * Whether this process's stdout may be written with an FdWriter, and made ready for it: a regular file, or a pipe
 * whose descriptor is non-blocking (as Node opens it; made so again here). Not a terminal, a socket, or on Windows.
 */
export function readiesForFdWriter(stdout: OutStream): boolean {
  if (process.platform === 'win32' || stdout !== process.stdout) return false;
  let stats: ReturnType<typeof fstatSync>;
  try {
    stats = fstatSync(1);
  } catch {
    return false;
  }
  if (stats.isFile()) return true;
  if (!stats.isFIFO()) return false;
  const handle = (stdout as OutStream & { _handle?: PipeHandle })._handle;
  return typeof handle?.setBlocking === 'function' && handle.setBlocking(false) === 0;
}
