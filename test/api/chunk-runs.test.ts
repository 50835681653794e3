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

describe('chunkRuns, a busy reader', () => {
  it('takes the chunks that wait as copies, so the stream’s buffers die young; a run stays as it was until the reader asks for the one after it', async () => {
    const stream = new PassThrough();
    const runs = chunkRuns(stream, 16)[Symbol.asyncIterator]();
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const text = (run: Buffer[]) => Buffer.concat(run).toString();

    stream.write(Buffer.from('a'));
    const first = (await runs.next()).value as Buffer[];
    expect(text(first)).toBe('a');

    // The reader is busy: what arrives waits, as a copy (the stream's own buffer changed afterwards changes nothing).
    const waiting = Buffer.from('bcd');
    stream.write(waiting);
    await settle();
    waiting.fill(0x78);
    const second = (await runs.next()).value as Buffer[];
    expect(text(second)).toBe('bcd');
    expect(second.every((chunk) => chunk.buffer !== waiting.buffer)).toBe(true);

    // The next run goes to the other area: the second run is as it was while the reader still holds it.
    stream.write(Buffer.from('efg'));
    await settle();
    expect(text(second)).toBe('bcd');
    const third = (await runs.next()).value as Buffer[];
    expect(text(third)).toBe('efg');

    // A chunk larger than an area's room is taken as it came.
    const large = Buffer.alloc(128 * 1024, 0x79);
    stream.write(large);
    await settle();
    const fourth = (await runs.next()).value as Buffer[];
    expect(fourth.map((chunk) => chunk.length)).toEqual([large.length]);
    stream.destroy();
    await runs.return?.(undefined);
  });
});
