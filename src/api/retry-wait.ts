import type { IncomingHttpHeaders } from 'node:http';

export const MAX_WAIT_MS = 60_000;
const BASE_BACKOFF_MS = 250;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

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

/**
 * How long to wait before retry number `attempt` (0-based): what the server asked for (Retry-After, else the
 * rate-limit reset on a 429), else exponential backoff with full jitter; never more than MAX_WAIT_MS.
 */
export function retryWaitMs(
  attempt: number,
  headers: IncomingHttpHeaders | undefined,
  status: number | undefined,
  now: number,
  random: () => number,
): number {
  const asked =
    headers && (retryAfterMs(headers, now) ?? (status === 429 ? rateLimitResetMs(headers, now) : undefined));
  const wait = asked ?? random() * BASE_BACKOFF_MS * 2 ** attempt;
  return Math.round(Math.min(MAX_WAIT_MS, wait));
}

export function rateLimitSummary(headers: IncomingHttpHeaders): string | undefined {
  const limit = header(headers, 'x-ratelimit-limit');
  const remaining = header(headers, 'x-ratelimit-remaining');
  const reset = header(headers, 'x-ratelimit-reset');
  if (limit === undefined && remaining === undefined) return undefined;
  return `rate limit ${remaining ?? '?'}/${limit ?? '?'}${reset === undefined ? '' : ` reset ${reset}`}`;
}
