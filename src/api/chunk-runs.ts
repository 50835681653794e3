import type { Readable } from 'node:stream';

/** How much received data may wait for the reader of `chunkRuns` before the socket stops being read. */
export const CHUNK_RUN_MAX_BYTES = 256 * 1024;

/**
 * The same for a reader that is slow by nature (a tail that forwards, one POST per event): what waits is then at
 * most one socket read, and its run's events die young. With CHUNK_RUN_MAX_BYTES a forwarding tail of 10,000
 * events peaked at 81–82 MB, with this 69–71 MB, at the same speed (docs/decisions/2026-11-26-forwarding-memory.md).
 */
export const SLOW_READER_RUN_BYTES = 64 * 1024;

/**
 * A stream's chunks in runs: each run is every chunk that arrived since the previous one was taken, so what one
 * socket read delivered (often dozens of small HTTP chunks, an event each) is handled, and written, as one batch.
 * Nothing waits for more: a lone chunk is a run of its own at once; above `maxBytes` waiting, the stream is paused
 * until the reader catches up.
 *
 * A chunk that arrives while the reader is busy (forwarding the events before it) is copied into one of two areas
 * that take turns, run by run: the stream's own buffer then dies young. Kept as it came, it lived long enough to be
 * promoted, and its 64 KB stayed in the allocator until a full collection (with SLOW_READER_RUN_BYTES, a forwarding
 * tail's peak RSS 82–83 MB without the copy, 69–71 MB with it). A run's area is written again only after the reader
 * has asked for the run after it.
 */
export async function* chunkRuns(
  stream: Readable,
  /** Less for each of several streams read at once (a merged tail): what waits in all is then the one bound. */
  maxBytes = CHUNK_RUN_MAX_BYTES,
): AsyncGenerator<Buffer[], void, undefined> {
  let queue: Buffer[] = [];
  let queued = 0;
  let wake: (() => void) | undefined;
  const areas = new TurnAreas(maxBytes + AREA_SLACK_BYTES);
  let ended = false;
  let failure: Error | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const onData = (chunk: Buffer) => {
    // A reader that waits takes the chunk at once; any other chunk waits in an area.
    queue.push(wake ? chunk : areas.copy(chunk));
    queued += chunk.length;
    if (queued >= maxBytes) stream.pause();
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (err: Error) => {
    failure = err;
    notify();
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('close', onEnd);
  stream.on('error', onError);
  try {
    for (;;) {
      if (queue.length > 0) {
        const run = queue;
        queue = [];
        queued = 0;
        areas.turn();
        if (stream.isPaused()) stream.resume();
        yield run;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('close', onEnd);
    stream.off('error', onError);
  }
}

/** Room in an area past `maxBytes` for the chunk that crosses it (a socket read is at most 64 KB). */
const AREA_SLACK_BYTES = 64 * 1024;

/** Two areas that take turns, one per run: the chunks of a run are copied one after the other into its area. */
class TurnAreas {
  #areas: Buffer[] = [];
  #current = 0;
  #used = 0;

  constructor(readonly size: number) {}

  /** The chunk's copy in the current area, or the chunk itself when it does not fit. */
  copy(chunk: Buffer): Buffer {
    if (chunk.length > this.size - this.#used) return chunk;
    this.#areas[this.#current] ??= Buffer.allocUnsafeSlow(this.size);
    const area = this.#areas[this.#current] as Buffer;
    const start = this.#used;
    this.#used += chunk.copy(area, start);
    return area.subarray(start, this.#used);
  }

  /** The run so far is taken: the next chunks go to the other area. */
  turn(): void {
    this.#current = 1 - this.#current;
    this.#used = 0;
  }
}
