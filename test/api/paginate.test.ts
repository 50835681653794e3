import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type CheckpointPage,
  checkpointPages,
  deduplicator,
  FingerprintSet,
  nextWindow,
  type OffsetAnswer,
  offsetList,
  orderedPages,
  type Page,
} from '../../src/api/paginate.js';
import { NetworkError } from '../../src/errors.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fake offset list whose requests the test answers by hand, in any order. */
function manualPages() {
  const calls = new Map<number, Deferred<Page<number>>>();
  let inFlight = 0;
  let maxInFlight = 0;
  const started: number[] = [];
  const fetchPage = (index: number) => {
    const d = deferred<Page<number>>();
    calls.set(index, d);
    started.push(index);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return d.promise.finally(() => {
      inFlight--;
    });
  };
  const answer = (index: number, items: number[], headers: IncomingHttpHeaders = {}) => {
    const d = calls.get(index);
    if (!d) throw new Error(`page ${index} was not requested`);
    d.resolve({ items, headers });
  };
  return {
    fetchPage,
    answer,
    fail: (index: number, err: Error) => calls.get(index)?.reject(err),
    started,
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const flush = () => new Promise((resolve) => setImmediate(resolve));

async function collect<T>(gen: AsyncGenerator<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of gen) out.push(...page.items);
  return out;
}

describe('orderedPages', () => {
  it('yields pages in order though they arrive in reverse, never more than `concurrency` in flight', async () => {
    const fake = manualPages();
    const result = collect(orderedPages({ fetchPage: fake.fetchPage, from: 1, knownEnd: 9, concurrency: 4 }));
    await flush();
    expect(fake.started).toEqual([1, 2, 3, 4]);
    for (const index of [4, 3, 2]) fake.answer(index, range(index * 2, 2));
    await flush();
    // Page 1 is slow: fetching goes on past it, up to 8 pages held.
    expect(fake.started).toEqual(range(1, 7));
    for (const index of [7, 6, 5]) fake.answer(index, range(index * 2, 2));
    await flush();
    expect(fake.started).toEqual(range(1, 8)); // 8 held (1 to 8): nothing more until the reader takes page 1
    fake.answer(1, range(2, 2));
    await flush();
    fake.answer(8, range(16, 2));
    expect(await result).toEqual(range(2, 16));
    expect(fake.maxInFlight).toBe(4);
    expect(fake.started).toEqual(range(1, 8)); // knownEnd bounds the requests: no probe past the total
  });

  it('holds at most twice the concurrency while the reader does not take pages', async () => {
    const fake = manualPages();
    const gen = orderedPages({ fetchPage: fake.fetchPage, from: 0, knownEnd: 100, concurrency: 3 });
    const first = gen.next();
    for (let round = 0; round < 5; round++) {
      await flush();
      for (const index of fake.started) fake.answer(index, [index]);
    }
    expect((await first).value?.items).toEqual([0]);
    await flush();
    expect(fake.started).toEqual(range(0, 7)); // page 0 taken, pages 1 to 6 held
    await gen.return(undefined);
  });

  it('drops to one request at a time when X-RateLimit-Remaining runs low, then climbs back', async () => {
    const fake = manualPages();
    const windows: number[] = [];
    const result = collect(
      orderedPages({
        fetchPage: fake.fetchPage,
        from: 0,
        knownEnd: 12,
        concurrency: 4,
        onWindow: (w) => windows.push(w),
      }),
    );
    const low = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '3' };
    const plenty = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '90' };
    await flush();
    expect(fake.started).toEqual([0, 1, 2, 3]);
    fake.answer(0, [0], low);
    await flush();
    // Window 1 with 3 already in flight: nothing new until they are down to none.
    expect(fake.started).toEqual([0, 1, 2, 3]);
    fake.answer(1, [1], low);
    fake.answer(2, [2], low);
    await flush();
    expect(fake.started).toEqual([0, 1, 2, 3]);
    fake.answer(3, [3], low);
    await flush();
    expect(fake.started).toEqual([0, 1, 2, 3, 4]);
    fake.answer(4, [4], plenty);
    await flush();
    expect(fake.started).toEqual(range(0, 7)); // window 2: pages 5 and 6
    for (const index of range(5, 7)) {
      await flush();
      fake.answer(index, [index], plenty);
    }
    expect(await result).toEqual(range(0, 12));
    expect(windows).toEqual([1, 2, 3, 4]);
  });

  it('yields the pages before a failed one, then throws its error', async () => {
    const fake = manualPages();
    const seen: number[] = [];
    const run = (async () => {
      for await (const page of orderedPages({
        fetchPage: fake.fetchPage,
        from: 0,
        knownEnd: 4,
        concurrency: 4,
      })) {
        seen.push(...page.items);
      }
    })();
    await flush();
    fake.fail(2, new NetworkError('boom'));
    fake.answer(0, [0]);
    fake.answer(1, [1]);
    fake.answer(3, [3]);
    await expect(run).rejects.toThrow('boom');
    expect(seen).toEqual([0, 1]);
  });
});

/** A list of `count` numbers served `cap` at a time whatever is asked, with totals when asked, recording each call. */
function cappedList(count: number, cap: number, opts: { totals?: boolean; total?: number } = {}) {
  const calls: string[] = [];
  const fetch = async (page: number, perPage: number, withTotals: boolean): Promise<OffsetAnswer<number>> => {
    calls.push(`${page}/${perPage}${withTotals ? '+t' : ''}`);
    const size = Math.min(perPage, cap);
    const items = range(page * size, Math.max(0, Math.min(size, count - page * size)));
    const totals =
      withTotals && opts.totals !== false ? { start: page * size, limit: size, total: opts.total ?? count } : undefined;
    return { items, headers: {}, totals };
  };
  return { fetch, calls };
}

async function listAll(fetch: ReturnType<typeof cappedList>['fetch'], perPage = 100) {
  const items: number[] = [];
  const totals: Array<number | undefined> = [];
  let error: unknown;
  try {
    for await (const page of offsetList({ fetch, perPage, concurrency: 1, key: String, what: 'things' })) {
      items.push(...page.items);
      totals.push(page.total);
    }
  } catch (err) {
    error = err;
  }
  return { items, totals, error };
}

describe('offsetList', () => {
  it('plans pages from the limit the service returns, not the size asked (a public-cloud cap of 50)', async () => {
    const list = cappedList(120, 50);
    const { items, error } = await listAll(list.fetch);
    expect(error).toBeUndefined();
    expect(items).toEqual(range(0, 120));
    expect(list.calls).toEqual(['0/100+t', '1/50', '2/50']);
  });

  it('reports a shortfall against the total with the numbers: exit 7, never a silent success', async () => {
    const list = cappedList(120, 50, { total: 130 });
    const { items, error } = await listAll(list.fetch);
    expect(items).toEqual(range(0, 120));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(
      'the service said there are 130 things but sent 120: 10 missing (the list may have changed while paging; run again)',
    );
    // The planned pages (3) fell short: one more page was asked before giving up.
    expect(list.calls).toEqual(['0/100+t', '1/50', '2/50', '3/50']);
  });

  it('stops after 3 pages in a row with nothing new when the total is a lie', async () => {
    const list = cappedList(10, 5, { total: 1e12 });
    const { items, error } = await listAll(list.fetch, 5);
    expect(items).toEqual(range(0, 10));
    expect((error as Error).message).toBe(
      'malformed answer from the service: 3 pages in a row with nothing new, after 10 of the 1000000000000 things it announced',
    );
    // Pages 2, 3 and 4 are empty; page 5 was already asked (one page of look-ahead at concurrency 1).
    expect(list.calls).toEqual(['0/5+t', '1/5', '2/5', '3/5', '4/5', '5/5']);
  });

  it('without a total, probes past a first page shorter than asked, and stops at a page shorter than before', async () => {
    const capped = cappedList(120, 50, { totals: false });
    const all = await listAll(capped.fetch);
    expect(all.items).toEqual(range(0, 120));
    expect(capped.calls).toEqual(['0/100+t', '1/100', '2/100']);
    const short = cappedList(30, 50, { totals: false });
    expect((await listAll(short.fetch)).items).toEqual(range(0, 30));
    expect(short.calls).toEqual(['0/100+t', '1/100']);
  });

  it('makes one request for an empty list', async () => {
    const list = cappedList(0, 50);
    expect(await listAll(list.fetch)).toEqual({ items: [], totals: [0], error: undefined });
    expect(list.calls).toEqual(['0/100+t']);
  });
});

describe('nextWindow', () => {
  it('eases off at or below the larger of the concurrency and a tenth of the limit', () => {
    expect(nextWindow(4, 4, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '10' })).toBe(1);
    expect(nextWindow(4, 4, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '11' })).toBe(4);
    expect(nextWindow(4, 8, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '8' })).toBe(1);
    expect(nextWindow(1, 4, { 'x-ratelimit-remaining': '50' })).toBe(2);
    expect(nextWindow(2, 4, {})).toBe(3);
    expect(nextWindow(4, 4, { 'x-ratelimit-remaining': 'soon' })).toBe(4);
  });
});

describe('checkpointPages', () => {
  const byValue = { key: (n: number) => String(n) };

  it('passes each `next` back unmodified as `from` until it is absent or empty', async () => {
    const froms: Array<string | undefined> = [];
    const pages: Record<string, CheckpointPage<number>> = {
      start: { items: [1], headers: {}, next: 'a+b/=' },
      'a+b/=': { items: [2], headers: {}, next: 'c' },
      c: { items: [3], headers: {}, next: '' },
    };
    const items = await collect(
      checkpointPages(async (from) => {
        froms.push(from);
        return pages[from ?? 'start'] as CheckpointPage<number>;
      }, byValue),
    );
    expect(items).toEqual([1, 2, 3]);
    expect(froms).toEqual([undefined, 'a+b/=', 'c']);
  });

  it('starts at a given checkpoint and stops when `next` is missing', async () => {
    const froms: Array<string | undefined> = [];
    const items = await collect(
      checkpointPages(
        async (from) => {
          froms.push(from);
          return { items: [7], headers: {}, next: undefined };
        },
        { ...byValue, from: 'x' },
      ),
    );
    expect(items).toEqual([7]);
    expect(froms).toEqual(['x']);
  });

  it('stops after 3 empty pages in a row that each carry a new checkpoint', async () => {
    let calls = 0;
    const run = collect(
      checkpointPages(async () => {
        calls++;
        return { items: calls === 1 ? [1] : [], headers: {}, next: `c${calls}` };
      }, byValue),
    );
    await expect(run).rejects.toThrow(
      'malformed answer from the service: 3 pages in a row with nothing new, each with a new checkpoint',
    );
    expect(calls).toBe(4);
  });

  it('stops after 3 pages in a row that bring only items already given, each with a new checkpoint', async () => {
    let calls = 0;
    const pages: number[][] = [];
    const run = (async () => {
      for await (const page of checkpointPages(async () => {
        calls++;
        return { items: calls === 2 ? [2, 1] : [1], headers: {}, next: `c${calls}` };
      }, byValue))
        pages.push(page.items);
    })();
    await expect(run).rejects.toThrow(
      'malformed answer from the service: 3 pages in a row with nothing new, each with a new checkpoint',
    );
    expect(pages).toEqual([[1], [2], [], [], []]);
    expect(calls).toBe(5);
  });

  it('refuses to loop on a checkpoint it was already given', async () => {
    let calls = 0;
    const run = collect(
      checkpointPages(async () => {
        calls++;
        return { items: [calls], headers: {}, next: calls === 1 ? 'a' : calls === 2 ? 'b' : 'a' };
      }, byValue),
    );
    await expect(run).rejects.toThrow('the service returned the same pagination checkpoint twice');
    expect(calls).toBe(3);
  });
});

describe('deduplicator', () => {
  it('passes each key once across pages, keeping the first occurrence', () => {
    const unique = deduplicator<{ k: string; v: number }>((item) => item.k);
    expect(
      unique([
        { k: 'a', v: 1 },
        { k: 'b', v: 2 },
        { k: 'a', v: 3 },
      ]),
    ).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
    expect(
      unique([
        { k: 'b', v: 4 },
        { k: 'c', v: 5 },
      ]),
    ).toEqual([{ k: 'c', v: 5 }]);
  });
});

describe('FingerprintSet', () => {
  it('tells new strings from seen ones across growth, including near-identical ones', () => {
    const set = new FingerprintSet();
    const keys = Array.from({ length: 20_000 }, (_, i) => `https://api.example.com/x\u0000read:thing-${i}`);
    for (const k of keys) expect(set.add(k)).toBe(true);
    expect(set.size).toBe(20_000);
    for (const k of keys) expect(set.add(k)).toBe(false);
    expect(set.add('https://api.example.com/x\u0000read:thing-20000')).toBe(true);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
  });
});
