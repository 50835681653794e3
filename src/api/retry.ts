import type { IncomingHttpHeaders } from 'node:http';
import { header } from './headers.js';

/** Which failures a request may be tried again on. */
export type RetryPolicy =
  /** GET: 408, 429, 5xx and any network failure that is not permanent. */
  | 'read'
  /** A write: 429 and connections refused, where the request never arrived. */
  | 'write'
  /**
   * A write the service documents as idempotent (`DELETE /connections/{id}/users` answers 204 whether or not the
   * user existed): retried like a read, since sending it twice does what sending it once does.
   */
  | 'idempotent'
  /** The token POST: like a read, but never on a 4xx other than 429. */
  | 'token'
  /** The event stream: like a read; its reconnects have their own pacing (`reconnectDelayMs`). */
  | 'stream'
  /**
   * An event POSTed to the app of `events tail --forward-to`: anything but a 2xx, and any failure that is not
   * permanent, until it acknowledges (a delivery is at least once: the app tells repeats apart by the event id).
   */
  | 'forward';

/** What came back from one attempt: an HTTP status, or a failure below HTTP. */
export type AttemptOutcome =
  | { status: number; statusText: string; headers: IncomingHttpHeaders }
  | { failure: { code: string; message: string; permanent: boolean } };

export interface RetryVerdict {
  retry: boolean;
  /** Why it is tried again, for the trace and the stream's status line. */
  reason: string;
  /** The wait the server asked for (Retry-After, else a 429's rate-limit reset), when it did. */
  askedMs: number | undefined;
}

/** Every wait is capped: a server asking for an hour gets a minute. */
export const MAX_WAIT_MS = 60_000;
const BASE_BACKOFF_MS = 250;

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number): number | undefined {
  const value = header(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `X-RateLimit-Reset` is a UNIX time in seconds at which the bucket refills. */
export function rateLimitResetMs(headers: IncomingHttpHeaders, now: number): number | undefined {
  const value = header(headers, 'x-ratelimit-reset');
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Math.max(0, Number(value) * 1000 - now);
}

/** The one retry rule: whether an attempt's outcome is worth another try under `policy`, and the wait asked for. */
export function classify(policy: RetryPolicy, outcome: AttemptOutcome, now: number): RetryVerdict {
  if ('failure' in outcome) {
    const { failure } = outcome;
    const retry = !failure.permanent && (policy !== 'write' || failure.code === 'ECONNREFUSED');
    return { retry, reason: failure.message, askedMs: undefined };
  }
  const { status, statusText, headers } = outcome;
  const askedMs = retryAfterMs(headers, now) ?? (status === 429 ? rateLimitResetMs(headers, now) : undefined);
  if (status === 429) return { retry: true, reason: '429 rate limited', askedMs };
  const reason = `${status} ${statusText}`;
  if (policy === 'forward') return { retry: status < 200 || status >= 300, reason, askedMs };
  if (policy === 'write') return { retry: false, reason, askedMs };
  const retry = status >= 500 || (status === 408 && policy !== 'token');
  return { retry, reason, askedMs };
}

/**
 * How long to wait before retry number `attempt` (0-based) of a request: what the server asked for, else exponential
 * backoff with full jitter; never more than MAX_WAIT_MS.
 */
export function retryWaitMs(attempt: number, askedMs: number | undefined, random: () => number): number {
  const wait = askedMs ?? random() * BASE_BACKOFF_MS * 2 ** attempt;
  return Math.round(Math.min(MAX_WAIT_MS, wait));
}

const MAX_RECONNECT_BACKOFF_MS = 30_000;
/** The shortest reconnect interval taken from a server: `retry: 0` must not turn a closing stream into a storm. */
const MIN_SERVER_RETRY_MS = 100;

/** The event stream's `retry:` as svcadm takes it: within [100 ms, 60 s], like every wait a server asks for. */
export function serverRetryMs(ms: number): number {
  return Math.min(MAX_WAIT_MS, Math.max(MIN_SERVER_RETRY_MS, ms));
}

/**
 * Waits before reconnect number `attempt` (1-based) of the event stream: exponential from the server's `retry:`
 * (never less), capped, plus up to 25% jitter so that clients dropped together do not come back together; at least
 * what a 429 or 503 asked (capped at MAX_WAIT_MS).
 */
export function reconnectDelayMs(attempt: number, retryMs: number, random: () => number, askedMs?: number): number {
  const ceiling = Math.min(MAX_RECONNECT_BACKOFF_MS, retryMs * 2 ** Math.max(0, attempt - 1));
  const backoff = Math.max(retryMs, ceiling) * (1 + random() * 0.25);
  return Math.round(Math.max(backoff, Math.min(askedMs ?? 0, MAX_WAIT_MS)));
}
