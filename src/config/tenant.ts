import { UsageError } from '../errors.js';

/** Hosts for which plain http is acceptable: nothing leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Normalises `tenant.example.com`, `host:port`, `https://host[:port]` (or `http://` on loopback) to an origin.
 * A pasted interface URL ending in `/api/v2` is accepted too.
 */
export function parseOrigin(input: string, what = '--domain'): string {
  const text = input.trim();
  if (text === '') throw new UsageError(`${what} is empty`);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `https://${text}`);
  } catch {
    throw new UsageError(`invalid ${what} '${input}': expected a host such as tenant.example.com or https://host:port`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid ${what} '${input}': only https:// (or http:// on loopback) is supported`);
  }
  if (url.username || url.password || url.search || url.hash || !url.hostname) {
    throw new UsageError(`invalid ${what} '${input}': expected a host such as tenant.example.com or https://host:port`);
  }
  if (!/^\/?(?:api\/v2\/?)?$/.test(url.pathname)) {
    throw new UsageError(`invalid ${what} '${input}': give the tenant's host, not a path (${url.pathname})`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing plain http to ${url.hostname}: credentials would cross the network unencrypted`,
      'use https://, or http:// only for loopback hosts (127.0.0.1, ::1, localhost)',
    );
  }
  return url.origin;
}
