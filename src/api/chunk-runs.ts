import type { Readable } from 'node:stream';

/** How much received data may wait for the reader of `chunkRuns` before the socket stops being read. */
export const CHUNK_RUN_MAX_BYTES = 256 * 1024;

/**
 * A stream's chunks in runs: each run is every chunk that arrived since the previous one was taken, so what one
 * socket read delivered (often dozens of small HTTP chunks, an event each) is handled, and written, as one batch.
 * Nothing waits for more: a lone chunk is a run of its own at once. The chunks stay as they came (no copy, so they
 * die young); above `maxBytes` waiting, the stream is paused until the reader catches up.
 */
export async function* chunkRuns(
  stream: Readable,
  /** Less for each of several streams read at once (a merged tail): what waits in all is then the one bound. */
  maxBytes = CHUNK_RUN_MAX_BYTES,
): AsyncGenerator<Buffer[], void, undefined> {
  let queue: Buffer[] = [];
  let queued = 0;
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: Error | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const onData = (chunk: Buffer) => {
    queue.push(chunk);
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
