import type { IncomingHttpHeaders } from 'node:http';
import { NetworkError } from '../errors.js';

/** One page of a list, with the response headers (for the rate-limit state). */
export interface Page<T> {
  items: T[];
  headers: IncomingHttpHeaders;
}

/** A checkpoint page: its items and the `next` checkpoint, absent or empty on the last page. */
export interface CheckpointPage<T> extends Page<T> {
  next: string | undefined;
}

/** Follows `next` (passed back unmodified as `from`) while it is present and non-empty. */
export async function* checkpointPages<T>(
  fetchPage: (from: string | undefined) => Promise<CheckpointPage<T>>,
  from?: string,
): AsyncGenerator<CheckpointPage<T>> {
  let cursor = from;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const next = page.next;
    if (next === undefined || next === '') return;
    // A service that hands back a checkpoint it already gave would otherwise be followed forever.
    if (seen.has(next)) throw new NetworkError('the service returned the same pagination checkpoint twice');
    seen.add(next);
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
 * Offset pages `from`, `from + 1`, … yielded strictly in order while up to `concurrency` are fetched at once.
 * At most `concurrency` pages are held, and new requests start only as the caller takes pages, so memory stays
 * bounded by the window however slow the reader is.
 */
export async function* orderedPages<T>(options: OrderedPagesOptions<T>): AsyncGenerator<Page<T>> {
  const { fetchPage, knownEnd, perPage, concurrency } = options;
  const pending = new Map<number, Promise<Settled<Page<T>>>>();
  let nextToFetch = options.from;
  let nextToYield = options.from;
  let window = options.previousHeaders ? nextWindow(concurrency, concurrency, options.previousHeaders) : concurrency;
  let lastFull = true;
  const start = (index: number) => {
    pending.set(index, settle(fetchPage(index)));
    nextToFetch = index + 1;
  };
  for (;;) {
    if (knownEnd !== undefined) {
      while (pending.size < window && nextToFetch < knownEnd) start(nextToFetch);
    } else if (pending.size === 0 && lastFull) {
      start(nextToFetch);
    }
    const head = pending.get(nextToYield);
    if (!head) return;
    const result = await head;
    pending.delete(nextToYield);
    if (!result.ok) throw result.error;
    nextToYield++;
    const eased = nextWindow(window, concurrency, result.value.headers);
    if (eased !== window) {
      window = eased;
      options.onWindow?.(window);
    }
    lastFull = result.value.items.length >= perPage;
    yield result.value;
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

function numberHeader(headers: IncomingHttpHeaders, name: string): number | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** A filter that passes each item the first time its key is seen (pages may repeat items while data changes). */
export function deduplicator<T>(key: (item: T) => string): (items: readonly T[]) => T[] {
  const seen = new Set<string>();
  return (items) =>
    items.filter((item) => {
      const k = key(item);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}
