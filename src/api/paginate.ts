import type { IncomingHttpHeaders } from 'node:http';
import { NetworkError } from '../errors.js';
import { numberHeader } from './headers.js';
import { malformedAnswer } from './json-answer.js';

/**
 * Empty pages in a row before the end a list announced (or with a new checkpoint each time) after which the list is
 * taken for a lie: data changing under a reader can empty a page or two, not more.
 */
export const MAX_EMPTY_PAGES_IN_A_ROW = 3;

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
 * Follows `next` (passed back unmodified as `from`) while it is present and non-empty. Checkpoints already followed
 * are remembered as fingerprints, not strings, so a long list costs a few bytes a page.
 */
export async function* checkpointPages<T>(
  fetchPage: (from: string | undefined) => Promise<CheckpointPage<T>>,
  from?: string,
): AsyncGenerator<CheckpointPage<T>> {
  let cursor = from;
  const seen = new FingerprintSet();
  let emptyRun = 0;
  for (;;) {
    const page = await fetchPage(cursor);
    const next = page.next;
    const more = next !== undefined && next !== '';
    emptyRun = page.items.length === 0 && more ? emptyRun + 1 : 0;
    if (emptyRun >= MAX_EMPTY_PAGES_IN_A_ROW) {
      throw malformedAnswer(`${emptyRun} empty pages in a row, each with a new checkpoint`);
    }
    yield page;
    if (!more) return;
    // A service that hands back a checkpoint it already gave would otherwise be followed forever.
    if (!seen.add(next)) throw new NetworkError('the service returned the same pagination checkpoint twice');
    cursor = next;
  }
}

export interface OrderedPagesOptions<T> {
  fetchPage: (index: number) => Promise<Page<T>>;
  /** First page index to fetch. */
  from: number;
  /**
   * End (exclusive) of the pages known from the total: fetched concurrently. Undefined when the total is unknown:
   * then one page at a time until a page comes back shorter than `perPage`.
   */
  knownEnd: number | undefined;
  perPage: number;
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
  const { fetchPage, knownEnd, perPage, concurrency } = options;
  const maxHeld = concurrency * 2;
  const pending = new Map<number, Promise<Settled<Page<T>>>>();
  let nextToFetch = options.from;
  let nextToYield = options.from;
  let inFlight = 0;
  let window = options.previousHeaders ? nextWindow(concurrency, concurrency, options.previousHeaders) : concurrency;
  let lastFull = true;
  let emptyRun = 0;
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
    if (knownEnd !== undefined) {
      while (inFlight < window && pending.size < maxHeld && nextToFetch < knownEnd) start(nextToFetch);
    } else if (pending.size === 0 && lastFull) {
      start(nextToFetch);
    }
  };
  try {
    for (;;) {
      schedule();
      const head = pending.get(nextToYield);
      if (!head) return;
      const result = await head;
      pending.delete(nextToYield);
      if (!result.ok) throw result.error;
      const index = nextToYield++;
      lastFull = result.value.items.length >= perPage;
      // Without a known end, an empty page is a short one and ends the list; before a known end, it may be a lie.
      emptyRun = result.value.items.length === 0 ? emptyRun + 1 : 0;
      if (knownEnd !== undefined && emptyRun >= MAX_EMPTY_PAGES_IN_A_ROW) {
        throw malformedAnswer(
          `${emptyRun} empty pages in a row before the end it announced (page ${index} of ${knownEnd})`,
        );
      }
      yield result.value;
    }
  } finally {
    closed = true;
  }
}

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

/** An open-addressing set of 64-bit string fingerprints (cyrb53's mixing, both 32-bit lanes kept). */
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
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    if ((this.#size + 1) * 2 > this.#used.length) this.#grow();
    return this.#insert(h2 >>> 0, h1 >>> 0);
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
