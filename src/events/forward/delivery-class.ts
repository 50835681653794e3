/**
 * How an app's answer to one delivery attempt is taken (cli.md, "Forwarding"), the one place it is decided:
 * a 2xx acknowledges; 408, 425, 429, 5xx, a refused or reset connection and no answer in time are retried; any other
 * answer is a rejection, never retried (the event itself is at fault, not the moment).
 */
export type DeliveryClass = 'acknowledged' | 'retried' | 'rejected';

/** The class of an HTTP status. */
export function classOfStatus(status: number): DeliveryClass {
  if (status >= 200 && status < 300) return 'acknowledged';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retried';
  return 'rejected';
}

/** The first wait; each retry doubles it, up to the cap. */
export const FIRST_BACKOFF_MS = 500;
/** The longest wait between two attempts, a `Retry-After` included. */
export const MAX_BACKOFF_MS = 30_000;

/**
 * The wait before attempt `next` (2-based: the first retry): what the app asked for with `Retry-After`, up to the cap;
 * else exponential backoff with full jitter (AWS's "Exponential Backoff and Jitter"): anywhere from 0 to
 * min(cap, 0.5 s × 2^(next-2)).
 */
export function backoffMs(next: number, random: () => number, askedMs?: number): number {
  if (askedMs !== undefined) return Math.round(Math.min(MAX_BACKOFF_MS, Math.max(0, askedMs)));
  const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, next - 2));
  return Math.round(random() * ceiling);
}
