import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Where the emulator listens: what a request's `Host` must name (DNS rebinding cannot). */
export interface ListenAddress {
  /** The bound address, e.g. `127.0.0.1`, `::1`, `0.0.0.0` or a name. */
  host: string;
  port: number;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

function bare(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * Whether a `Host` header names this emulator: its port, and its bound address or `localhost`. Bound to every
 * interface, any IP literal is accepted too (a rebinding attack needs a name, not an address).
 */
export function isOwnHost(header: string | undefined, listen: ListenAddress): boolean {
  if (header === undefined || header === '') return false;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.pathname !== '/') return false;
  if (Number(url.port || '80') !== listen.port) return false;
  const name = bare(url.hostname);
  if (name === 'localhost' || name === bare(listen.host)) return true;
  return WILDCARDS.has(listen.host) && isIP(name) !== 0;
}

/**
 * Why a control request may come from a web page, or undefined when it cannot: a browser names a foreign page in
 * `Origin` and `Sec-Fetch-Site`; a script, curl and the tests send neither (or their own origin).
 */
export function crossSiteOrigin(req: IncomingMessage, listen: ListenAddress): string | undefined {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string | undefined;
    try {
      const url = new URL(origin);
      host = url.protocol === 'http:' ? url.host : undefined;
    } catch {
      host = undefined;
    }
    if (host === undefined || !isOwnHost(host, listen)) return origin.slice(0, 200);
  }
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return origin?.slice(0, 200) ?? `a ${site} page`;
  return undefined;
}

/** Whether a request body is declared JSON (a web page cannot send that without a preflight, which is never allowed). */
export function isJsonBody(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && /^application\/json\s*(;|$)/i.test(type);
}
