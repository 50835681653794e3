import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CHUNK_RUN_MAX_BYTES, chunkRuns } from '../../src/api/chunk-runs.js';

// What may wait for the reader of a stream before its socket stops being read: the tail's bound by default, less for
// each tenant of a merged tail (their sum is the one bound).

async function pausedAfter(bytes: number, maxBytes?: number): Promise<boolean> {
  const stream = new PassThrough();
  const runs = chunkRuns(stream, maxBytes)[Symbol.asyncIterator]();
  stream.write(Buffer.alloc(1));
  await runs.next(); // the first run taken; nothing is taken after it
  for (let sent = 0; sent < bytes; sent += 1024) stream.write(Buffer.alloc(1024));
  await new Promise((resolve) => setImmediate(resolve));
  const paused = stream.isPaused();
  stream.destroy();
  await runs.return?.(undefined);
  return paused;
}

describe('chunkRuns', () => {
  it('stops reading once its bound waits for the reader: the tail’s by default, a smaller one when given', async () => {
    expect(await pausedAfter(32 * 1024)).toBe(false);
    expect(await pausedAfter(CHUNK_RUN_MAX_BYTES + 2048)).toBe(true);
    expect(await pausedAfter(31 * 1024, 32 * 1024)).toBe(false);
    expect(await pausedAfter(34 * 1024, 32 * 1024)).toBe(true);
  });
});
