import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CHUNK_RUN_MAX_BYTES, chunkRuns } from '../../../src/events/stream/chunk-runs.js';

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

describe('chunkRuns with reuseMemory (events tail)', () => {
  /** Lets the stream's writes reach chunkRuns. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps no chunk as it came: each is copied into one of two areas, written again once the next run is taken', async () => {
    const stream = new PassThrough();
    const runs = chunkRuns(stream, 1024, true)[Symbol.asyncIterator]();
    const sent = [Buffer.from('first '), Buffer.from('second'), Buffer.from('third '), Buffer.from('fourth')];
    stream.write(sent[0]);
    const first = (await runs.next()).value as Buffer[];
    // Chunks that wait while the reader has a run go to the other area: the run it has stays as it is.
    stream.write(sent[1]);
    stream.write(sent[2]);
    await settle();
    expect(Buffer.concat(first).toString()).toBe('first ');
    const second = (await runs.next()).value as Buffer[];
    expect(Buffer.concat(second).toString()).toBe('secondthird ');
    // The reader asked for the next run: the first run's area takes what comes now.
    stream.write(sent[3]);
    await settle();
    expect(Buffer.concat(first).toString()).toBe('fourth');
    expect(Buffer.concat(second).toString()).toBe('secondthird ');
    const third = (await runs.next()).value as Buffer[];
    expect(Buffer.concat(third).toString()).toBe('fourth');
    // Not one of the stream's own buffers is held: a socket's read buffer dies young.
    for (const chunk of [...first, ...second, ...third]) {
      expect(sent.some((s) => s.buffer === chunk.buffer)).toBe(false);
    }
    stream.destroy();
    await runs.return?.(undefined);
  });

  it('passes on a chunk larger than an area as it came', async () => {
    const stream = new PassThrough();
    const runs = chunkRuns(stream, 1024, true)[Symbol.asyncIterator]();
    const large = Buffer.alloc(1024 + 64 * 1024 + 1, 0x61);
    stream.write(large);
    const run = (await runs.next()).value as Buffer[];
    expect(run).toHaveLength(1);
    expect(run[0]?.buffer).toBe(large.buffer);
    stream.destroy();
    await runs.return?.(undefined);
  });
});
