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
  /** Whether `askedMs` is a rate-limit reset (jittered, so that clients that share a bucket do not wake together). */
  untilReset?: boolean;
  /** Set when the server asked for longer than MAX_WAIT_MS: not retried, the caller says when to try again. */
  tooLong?: boolean;
}

/**
 * The longest wait svcadm takes: a server asking for more is not waited for at all (the vendor's SDKs cap their
 * waits at 60 s; a quota that resets in an hour is not worth a hung job). The event stream caps its waits instead.
 */
export const MAX_WAIT_MS = 60_000;
/** A wait the server asked for is said on stderr when it is longer than this (a shorter one passes unnoticed). */
export const ANNOUNCED_WAIT_MS = 2_000;
/** A wait until a rate-limit reset gets up to this much more, from the random source. */
const RESET_JITTER = 0.2;
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
/** A policy that caps a long wait asked for instead of refusing it (never `tooLong`). */
export function capsWaits(policy: RetryPolicy): boolean {
  return policy === 'stream' || policy === 'forward';
}

export function classify(policy: RetryPolicy, outcome: AttemptOutcome, now: number): RetryVerdict {
  if ('failure' in outcome) {
    const { failure } = outcome;
    const retry = !failure.permanent && (policy !== 'write' || failure.code === 'ECONNREFUSED');
    return { retry, reason: failure.message, askedMs: undefined };
  }
  const { status, statusText, headers } = outcome;
  const retryAfter = retryAfterMs(headers, now);
  const reset = retryAfter === undefined && status === 429 ? rateLimitResetMs(headers, now) : undefined;
  const askedMs = retryAfter ?? (reset === 0 ? undefined : reset);
  const asked = { askedMs, ...(reset ? { untilReset: true } : {}) };
  const reason = status === 429 ? '429 rate limited' : `${status} ${statusText}`;
  let retry: boolean;
  if (status === 429) retry = true;
  else if (policy === 'forward') retry = status < 200 || status >= 300;
  else if (policy === 'write') retry = false;
  else retry = status >= 500 || (status === 408 && policy !== 'token');
  if (retry && !capsWaits(policy) && askedMs !== undefined && askedMs > MAX_WAIT_MS) {
    return { retry: false, reason, ...asked, tooLong: true };
  }
  return { retry, reason, ...asked };
}

/**
 * How long to wait before retry number `attempt` (0-based) of a request: what the server asked for (until a
 * rate-limit reset: plus 0–20 % jitter), else exponential backoff with full jitter; never more than MAX_WAIT_MS.
 */
export function retryWaitMs(
  attempt: number,
  verdict: Pick<RetryVerdict, 'askedMs' | 'untilReset'>,
  random: () => number,
): number {
  const { askedMs } = verdict;
  let wait = askedMs ?? random() * BASE_BACKOFF_MS * 2 ** attempt;
  if (askedMs !== undefined && verdict.untilReset) wait = askedMs * (1 + random() * RESET_JITTER);
  return Math.round(Math.min(MAX_WAIT_MS, wait));
}

/** Whether a wait is said on stderr: one the server asked for, longer than ANNOUNCED_WAIT_MS. */
export function announcesWait(verdict: Pick<RetryVerdict, 'askedMs'>, waitMs: number): boolean {
  return verdict.askedMs !== undefined && waitMs > ANNOUNCED_WAIT_MS;
}

/** A wait in words: `5s`, `12 min`, `3 h`. */
export function waitText(ms: number): string {
  if (ms < 120_000) return `${Math.ceil(ms / 1000)}s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
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
