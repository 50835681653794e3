import type { Readable } from 'node:stream';

/** How much received data may wait for the reader of `chunkRuns` before the socket stops being read. */
export const CHUNK_RUN_MAX_BYTES = 256 * 1024;
/**
 * What may wait for a reader that takes long over each run (a forwarding tail delivers its events one at a time):
 * about one socket read. A run's events are then handed over, and gone, before two minor collections have passed;
 * a run of CHUNK_RUN_MAX_BYTES kept about a hundred alive for 30 ms, and they were promoted.
 */
export const SLOW_READER_RUN_BYTES = 64 * 1024;
/** Room in an area past `maxBytes`: the chunk that crosses it (a socket read, at most 64 KB) still fits. */
const AREA_SLACK = 64 * 1024;

/**
 * A stream's chunks in runs: each run is every chunk that arrived since the previous one was taken, so what one
 * socket read delivered (often dozens of small HTTP chunks, an event each) is handled, and written, as one batch.
 * Nothing waits for more: a lone chunk is a run of its own at once. Above `maxBytes` waiting, the stream is paused
 * until the reader catches up.
 *
 * With `reuseMemory`, each chunk is copied as it arrives into one of two areas that take turns, and the run is views
 * of the area: a chunk that waits for a busy reader (a forwarding tail's, tens of milliseconds) would otherwise outlive
 * two minor collections, and the socket's read buffers would pile up outside the heap until a full one
 * (docs/decisions/2026-11-26-forwarding-memory.md). The area of a run is written again once the next run has been
 * asked for: the reader must keep nothing of a run's bytes past that (SseFramer's `chunksReused` copies what it keeps).
 */
export async function* chunkRuns(
  stream: Readable,
  /** Less for each of several streams read at once (a merged tail): what waits in all is then the one bound. */
  maxBytes = CHUNK_RUN_MAX_BYTES,
  reuseMemory = false,
): AsyncGenerator<Buffer[], void, undefined> {
  let queue: Buffer[] = [];
  let queued = 0;
  const areas = reuseMemory
    ? [Buffer.allocUnsafeSlow(maxBytes + AREA_SLACK), Buffer.allocUnsafeSlow(maxBytes + AREA_SLACK)]
    : [];
  /** The area the waiting chunks are copied into (the other holds the run the reader has), and how much of it is used. */
  let filling = 0;
  let used = 0;
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: Error | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const onData = (chunk: Buffer) => {
    const area = areas[filling];
    if (area && used + chunk.length <= area.length) {
      chunk.copy(area, used);
      queue.push(area.subarray(used, used + chunk.length));
      used += chunk.length;
    } else queue.push(chunk);
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
        filling ^= 1;
        used = 0;
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
