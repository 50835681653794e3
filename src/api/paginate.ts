import type { IncomingHttpHeaders } from 'node:http';
import { NetworkError } from '../errors.js';
import { fingerprintInto } from '../util/fingerprint.js';
import { numberHeader } from './headers.js';
import { malformedAnswer } from './json-answer.js';

/** One page of a list, with the response headers (for the rate-limit state). */
export interface Page<T> {
  items: T[];
  headers: IncomingHttpHeaders;
}

/** A checkpoint page: its items and the `next` checkpoint, absent or empty on the last page. */
export interface CheckpointPage<T> extends Page<T> {
  next: string | undefined;
}

/**
 * Pages in a row that bring nothing new before a listing is taken for a service that lies (a total it never reaches,
 * checkpoints that go on forever): the listing stops with exit 7 instead of looping.
 */
export const MAX_BARREN_PAGES = 3;

/** A checkpoint page as `checkpointPages` yields it: only the items not seen before, and how many came. */
export interface FreshCheckpointPage<T> extends CheckpointPage<T> {
  /** Items the page carried, repeats included. */
  received: number;
}

/**
 * Follows `next` (passed back unmodified as `from`) while it is present and non-empty, passing each item once (by
 * `key`). A checkpoint the service already gave is remembered by fingerprint, not kept, so a long listing stays
 * small; MAX_BARREN_PAGES pages in a row with no item not seen before end the listing, however new their checkpoints.
 */
export async function* checkpointPages<T>(
  fetchPage: (from: string | undefined) => Promise<CheckpointPage<T>>,
  options: { key: (item: T) => string; from?: string | undefined },
): AsyncGenerator<FreshCheckpointPage<T>> {
  let cursor = options.from;
  const seen = new FingerprintSet();
  const unique = deduplicator(options.key);
  let barren = 0;
  for (;;) {
    const page = await fetchPage(cursor);
    const items = unique(page.items);
    yield { ...page, items, received: page.items.length };
    const next = page.next;
    if (next === undefined || next === '') return;
    // A service that hands back a checkpoint it already gave would otherwise be followed forever.
    if (!seen.add(next))
      throw new NetworkError('the service returned the same pagination checkpoint twice', { code: 'malformed_answer' });
    barren = items.length === 0 ? barren + 1 : 0;
    if (barren >= MAX_BARREN_PAGES) {
      throw malformedAnswer(`${barren} pages in a row with nothing new, each with a new checkpoint`);
    }
    cursor = next;
  }
}

export interface OrderedPagesOptions<T> {
  fetchPage: (index: number) => Promise<Page<T>>;
  /** First page index to fetch. */
  from: number;
  /** End (exclusive) of the pages known from the total: fetched concurrently. */
  knownEnd: number;
  /** Most requests in flight at once. */
  concurrency: number;
  /** Headers of the page the caller fetched before `from`: a low rate limit there starts at one request. */
  previousHeaders?: IncomingHttpHeaders;
  /** Called when the number of requests in flight changes because of the rate-limit headers. */
  onWindow?: (window: number) => void;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/**
 * Offset pages `from`, `from + 1`, … yielded strictly in order while up to `concurrency` requests are in flight.
 * A slow page does not stall the others: fetching goes on past it, holding at most `2 × concurrency` pages
 * (fetched or in flight) that the reader has not taken yet, so memory stays bounded however slow the reader is.
 */
export async function* orderedPages<T>(options: OrderedPagesOptions<T>): AsyncGenerator<Page<T>> {
  const { fetchPage, knownEnd, concurrency } = options;
  const maxHeld = concurrency * 2;
  const pending = new Map<number, Promise<Settled<Page<T>>>>();
  let nextToFetch = options.from;
  let nextToYield = options.from;
  let inFlight = 0;
  let window = options.previousHeaders ? nextWindow(concurrency, concurrency, options.previousHeaders) : concurrency;
  let closed = false;
  const settled = (result: Settled<Page<T>>) => {
    inFlight--;
    if (result.ok) {
      // The freshest rate-limit state is the answer that just came in, whatever its place in the order.
      const eased = nextWindow(window, concurrency, result.value.headers);
      if (eased !== window) {
        window = eased;
        options.onWindow?.(window);
      }
    }
    schedule();
    return result;
  };
  const start = (index: number) => {
    inFlight++;
    pending.set(index, settle(fetchPage(index)).then(settled));
    nextToFetch = index + 1;
  };
  const schedule = () => {
    if (closed) return;
    while (inFlight < window && pending.size < maxHeld && nextToFetch < knownEnd) start(nextToFetch);
  };
  try {
    for (;;) {
      schedule();
      const head = pending.get(nextToYield);
      if (!head) return;
      const result = await head;
      pending.delete(nextToYield);
      if (!result.ok) throw result.error;
      nextToYield++;
      yield result.value;
    }
  } finally {
    closed = true;
  }
}

/**
 * Offset pages in flight at once unless `--concurrency` says otherwise (`--all`, `svcadm api --paginate`). Why 8
 * and how it behaves under a tenant's rate limit: docs/decisions/2026-11-23-offset-pages-in-flight-8.md.
 */
export const OFFSET_CONCURRENCY_DEFAULT = 8;

/**
 * Drops to one request at a time while `X-RateLimit-Remaining` is low (at most the larger of the concurrency and
 * a tenth of `X-RateLimit-Limit`), and climbs back one step per comfortable answer.
 */
export function nextWindow(current: number, concurrency: number, headers: IncomingHttpHeaders): number {
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  if (remaining === undefined) return Math.min(concurrency, current + 1);
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const lowWater = Math.max(concurrency, limit === undefined ? 0 : Math.ceil(limit / 10));
  if (remaining <= lowWater) return 1;
  return Math.min(concurrency, current + 1);
}

/**
 * A filter that passes each item the first time its key is seen (pages may repeat items while data changes).
 * It remembers 64-bit fingerprints of the keys in typed arrays rather than the keys themselves: 50,000 kept strings
 * cost tens of MB of peak RSS through the garbage collector, fingerprints cost 9 bytes a slot and no objects.
 * Two different keys share a fingerprint with odds of about n²/2⁶⁵ (1e-10 for 50,000 items).
 */
export function deduplicator<T>(key: (item: T) => string): (items: readonly T[]) => T[] {
  const seen = new FingerprintSet();
  return (items) => items.filter((item) => seen.add(key(item)));
}

const FINGERPRINT = new Uint32Array(2);

/** An open-addressing set of 64-bit string fingerprints (`fingerprintInto`, both 32-bit lanes kept). */
export class FingerprintSet {
  #hi = new Uint32Array(1024);
  #lo = new Uint32Array(1024);
  #used = new Uint8Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds the fingerprint of `text`; false when it was already there. */
  add(text: string): boolean {
    fingerprintInto(text, FINGERPRINT);
    if ((this.#size + 1) * 2 > this.#used.length) this.#grow();
    return this.#insert(FINGERPRINT[0] as number, FINGERPRINT[1] as number);
  }

  #insert(hi: number, lo: number): boolean {
    const mask = this.#used.length - 1;
    for (let slot = (lo ^ hi) & mask; ; slot = (slot + 1) & mask) {
      if (this.#used[slot] === 0) {
        this.#used[slot] = 1;
        this.#hi[slot] = hi;
        this.#lo[slot] = lo;
        this.#size++;
        return true;
      }
      if (this.#hi[slot] === hi && this.#lo[slot] === lo) return false;
    }
  }

  #grow(): void {
    const [hi, lo, used] = [this.#hi, this.#lo, this.#used];
    const capacity = used.length * 2;
    this.#hi = new Uint32Array(capacity);
    this.#lo = new Uint32Array(capacity);
    this.#used = new Uint8Array(capacity);
    this.#size = 0;
    for (let i = 0; i < used.length; i++) if (used[i] === 1) this.#insert(hi[i] as number, lo[i] as number);
  }
}

/** One answer of an offset list: its items and, when the service sent them, `start`, `limit` and `total`. */
export interface OffsetAnswer<T> extends Page<T> {
  totals?: { start?: unknown; limit?: unknown; total?: unknown } | undefined;
}

export interface OffsetListOptions<T> {
  /** Fetches page `page` (0-based) of `perPage` items, with the totals object when `withTotals`. */
  fetch(page: number, perPage: number, withTotals: boolean): Promise<OffsetAnswer<T>>;
  /** The page size to ask for; the service may serve fewer (its cap). */
  perPage: number;
  /** Most requests in flight at once once the total is known. */
  concurrency: number;
  /** What tells two items apart: pages may repeat items while data changes. */
  key(item: T): string;
  /** Plural name of the items, for messages (`permissions`). */
  what: string;
  onWindow?: (window: number) => void;
}

/** An offset list's items as it goes: the new ones, received so far (repeats included), and the total. */
export interface OffsetProgress<T> {
  items: T[];
  fetched: number;
  total: number | undefined;
}

function wholeNumber(value: unknown, min: number): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min ? value : undefined;
}

/**
 * Every item of an offset list, each once, in service order. The first page, asked with `include_totals`, says how
 * many items there are and how many the service really serves per page (`limit`: a public-cloud tenant caps at 50
 * whatever was asked); the remaining pages are planned from those and fetched concurrently, in order. A short page
 * before the total is not the end. Received fewer items than the total said: exit 7 with the numbers, never a silent
 * success. Without a total, pages come one at a time until an empty page or one shorter than those before it.
 */
export async function* offsetList<T>(opts: OffsetListOptions<T>): AsyncGenerator<OffsetProgress<T>> {
  const unique = deduplicator(opts.key);
  const first = await opts.fetch(0, opts.perPage, true);
  let fetched = first.items.length;
  const total = wholeNumber(first.totals?.total, 0);
  yield { items: unique(first.items), fetched, total };
  if (total === undefined) {
    yield* untilShortPage(opts, unique, first.items.length);
    return;
  }
  if (fetched >= total) return;
  // Later pages are asked at the size the service serves, so page n starts at n × size on its side too.
  const size = wholeNumber(first.totals?.limit, 1) ?? Math.max(1, first.items.length);
  let barren = 0;
  const progress = (page: Page<T>): OffsetProgress<T> => {
    fetched += page.items.length;
    const items = unique(page.items);
    barren = items.length === 0 ? barren + 1 : 0;
    if (barren >= MAX_BARREN_PAGES) {
      throw malformedAnswer(
        `${barren} pages in a row with nothing new, after ${fetched} of the ${total} ${opts.what} it announced`,
      );
    }
    return { items, fetched, total: Math.max(total, fetched) };
  };
  const planned = Math.ceil(total / size);
  const pages = orderedPages<T>({
    fetchPage: async (index) => opts.fetch(index, size, false),
    from: 1,
    knownEnd: planned,
    concurrency: opts.concurrency,
    previousHeaders: first.headers,
    ...(opts.onWindow ? { onWindow: opts.onWindow } : {}),
  });
  for await (const page of pages) yield progress(page);
  // The planned pages did not reach the total: the list moved, or pages were shorter than the limit said.
  for (let index = planned; fetched < total; index++) {
    const page = await opts.fetch(index, size, false);
    if (page.items.length === 0) break;
    yield progress(page);
  }
  if (fetched < total) {
    throw new NetworkError(
      `the service said there are ${total} ${opts.what} but sent ${fetched}: ${total - fetched} missing (the list may have changed while paging; run again)`,
      { code: 'list_changed' },
    );
  }
}

/** Without a total: page by page until an empty page, or one shorter than the longest so far (the last one). */
async function* untilShortPage<T>(
  opts: OffsetListOptions<T>,
  unique: (items: readonly T[]) => T[],
  firstLength: number,
): AsyncGenerator<OffsetProgress<T>> {
  let longest = firstLength;
  let fetched = firstLength;
  let barren = 0;
  // A first page shorter than asked may be the whole list or a capped page: one more page tells.
  for (let index = 1; longest > 0; index++) {
    const page = await opts.fetch(index, opts.perPage, false);
    if (page.items.length === 0) return;
    fetched += page.items.length;
    const items = unique(page.items);
    barren = items.length === 0 ? barren + 1 : 0;
    if (barren >= MAX_BARREN_PAGES) throw malformedAnswer(`${barren} pages in a row with nothing new`);
    yield { items, fetched, total: undefined };
    if (page.items.length < longest) return;
    longest = page.items.length;
  }
}
