import { describe, expect, it } from 'vitest';
import {
  type ItemSource,
  Pipeline,
  type Settlement,
  type ShownItem,
  type SourceEntry,
} from '../../../src/events/pipeline/pipeline.js';
import type { ItemStream } from '../../../src/io/stream-types.js';

/** An item of a source of one's own: what the merged tail of several tenants, or any other source, implements. */
interface Tagged {
  readonly kind: 'event';
  readonly tenant: string;
  readonly n: number;
}
type Note = { readonly kind: 'connected'; readonly tenant: string };
type Position = Readonly<Record<string, number>>;

/** Batches given in advance; each item moves its tenant's position to its number. */
function source(batches: SourceEntry<Tagged, Position, Note>[][]): ItemSource<Tagged, Position, Note> {
  let position: Position = {};
  return {
    async *batches() {
      for (const batch of batches) yield batch;
    },
    positionOf: (item) => {
      position = { ...position, [item.tenant]: item.n };
      return position;
    },
    unsettledBatches: 0,
  };
}

/** The Printer's side, kept in memory: what was written, in order. */
function printer(): ItemStream<ShownItem<Tagged>, unknown> & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    write: async (items) => {
      for (const item of items)
        written.push(`${item.event.tenant}${item.event.n}:${item.acknowledged?.outcome ?? '-'}`);
    },
    notice: () => {},
    live: false,
    status: () => {},
    close: () => {},
  };
}

const e = (tenant: string, n: number): Tagged => ({ kind: 'event', tenant, n });

describe('the events pipeline', () => {
  it('runs any source through the filters and the sinks, and moves the position only past what they settled', async () => {
    const out = printer();
    const notes: string[] = [];
    const settled: Position[] = [];
    const records: string[] = [];
    const pipeline = new Pipeline<Tagged, Position, Note>({
      source: source([
        [{ kind: 'connected', tenant: 'a' }, e('a', 1), e('b', 1), e('a', 2)],
        [{ kind: 'cursor', offset: { a: 2, b: 5 } }, e('b', 6), e('a', 3)],
      ]),
      accepts: (item) => item.n !== 2,
      deliver: async (item): Promise<Settlement> =>
        item.tenant === 'b' && item.n === 6
          ? { outcome: 'dead-lettered', status: 400, attempts: 1 }
          : { outcome: 'acknowledged', status: 204, attempts: 1 },
      record: {
        sink: { append: (lines) => records.push(...lines.map((l) => Buffer.from(l).toString())) },
        lines: (item) => [Buffer.from(`${item.tenant}${item.n}`)],
      },
      printer: out,
      written: async () => {},
      settledTo: (position) => settled.push(position),
      note: (note) => notes.push(`${note.kind} ${note.tenant}`),
      signal: new AbortController().signal,
      start: undefined,
    });
    await pipeline.run();
    expect(notes).toEqual(['connected a']);
    // a2 was filtered out; b6 was dead-lettered: settled, but neither printed nor recorded.
    expect(out.written).toEqual(['a1:acknowledged', 'b1:acknowledged', 'a3:acknowledged']);
    expect(records).toEqual(['a1', 'b1', 'a3']);
    expect(pipeline.count).toBe(4);
    expect(settled).toEqual([
      { a: 2, b: 1 },
      { a: 3, b: 6 },
    ]);
  });

  it('stops at maxItems, and a sink that cannot settle an item leaves the position before it', async () => {
    const out = printer();
    const stopAtTwo = new Pipeline<Tagged, Position, Note>({
      source: source([[e('a', 1), e('a', 2), e('a', 3)]]),
      printer: out,
      written: async () => {},
      note: () => {},
      signal: new AbortController().signal,
      maxItems: 2,
      start: undefined,
    });
    await stopAtTwo.run();
    expect([stopAtTwo.full, stopAtTwo.count, stopAtTwo.settledPosition]).toEqual([true, 2, { a: 2 }]);

    const failing = new Pipeline<Tagged, Position, Note>({
      source: source([[e('a', 1)], [e('a', 2), e('a', 3)]]),
      deliver: async (item) => {
        if (item.n === 3) throw new Error('the app is gone');
        return { outcome: 'acknowledged', status: 200, attempts: 1 };
      },
      printer: printer(),
      written: async () => {},
      note: () => {},
      signal: new AbortController().signal,
      start: { a: 0 },
    });
    await expect(failing.run()).rejects.toThrow('the app is gone');
    await failing.finishAfterStop();
    expect([failing.count, failing.settledPosition]).toEqual([2, { a: 2 }]);
  });
  it('makes the next accepted item of the batch ready while one is with the delivery sink, never across batches', async () => {
    const log: string[] = [];
    const pipeline = new Pipeline<Tagged, Position, Note>({
      source: source([[e('a', 1), e('a', 2), { kind: 'cursor', offset: { a: 2 } }, e('a', 3)], [e('a', 4)]]),
      accepts: (item) => item.n !== 2,
      deliver: async (item): Promise<Settlement> => {
        log.push(`deliver ${item.n}`);
        // The app's round trip: I/O, during which the next item is made ready.
        await new Promise<void>((resolve) => setTimeout(resolve, 5));
        log.push(`settled ${item.n}`);
        return { outcome: 'acknowledged', status: 204, attempts: 1 };
      },
      prepare: (item) => log.push(`prepare ${item.n}`),
      printer: printer(),
      written: async () => {},
      note: () => {},
      signal: new AbortController().signal,
      start: undefined,
    });
    await pipeline.run();
    expect(log).toEqual(['deliver 1', 'prepare 3', 'settled 1', 'deliver 3', 'settled 3', 'deliver 4', 'settled 4']);
  });
});

describe('a stop', () => {
  it('takes no batch after it: what a source had ready is left unprinted (a merged tail at Ctrl-C)', async () => {
    const out = printer();
    const stop = new AbortController();
    // A source with data ready after the stop (bytes a socket had buffered), which does not look at the signal.
    const ready: ItemSource<Tagged, Position, Note> = {
      async *batches() {
        for (let n = 1; n <= 100; n++) yield [e('a', n)];
      },
      positionOf: (item) => ({ a: item.n }),
      unsettledBatches: 0,
    };
    const pipeline = new Pipeline<Tagged, Position, Note>({
      source: ready,
      printer: {
        ...out,
        write: async (items) => {
          await out.write(items);
          if (out.written.length === 3) stop.abort();
        },
      },
      written: async () => {},
      note: () => {},
      signal: stop.signal,
      start: undefined,
    });
    await pipeline.run();
    expect(out.written).toEqual(['a1:-', 'a2:-', 'a3:-']);
    expect([pipeline.count, pipeline.settledPosition]).toEqual([3, { a: 3 }]);
  });
});
