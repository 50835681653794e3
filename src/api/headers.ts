import type { IncomingHttpHeaders } from 'node:http';

/** The first value of a header. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A header that must be a whole number; undefined when absent or anything else. */
export function numberHeader(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = header(headers, name)?.trim();
  return value === undefined || !/^\d+$/.test(value) ? undefined : Number(value);
}

/** `rate limit 7/10 reset 1767225600`, for --debug. */
export function rateLimitSummary(headers: IncomingHttpHeaders): string | undefined {
  const limit = header(headers, 'x-ratelimit-limit');
  const remaining = header(headers, 'x-ratelimit-remaining');
  const reset = header(headers, 'x-ratelimit-reset');
  if (limit === undefined && remaining === undefined) return undefined;
  return `rate limit ${remaining ?? '?'}/${limit ?? '?'}${reset === undefined ? '' : ` reset ${reset}`}`;
}
