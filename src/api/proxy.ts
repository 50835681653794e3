import { UsageError } from '../errors.js';

/**
 * Whether a request goes through a proxy, read from the environment as curl and Go read it: HTTPS_PROXY for https
 * targets, HTTP_PROXY for http ones, NO_PROXY for the exceptions; either case, the lower-case one first (curl).
 * Loopback hosts never go through a proxy (as Go does).
 */
export interface ChosenProxy {
  /** The proxy's URL, credentials included (the agent sends them as Proxy-Authorization to the proxy only). */
  readonly url: URL;
  /** `host:port`, never the credentials: what messages and --debug name. */
  readonly display: string;
  /** The environment variable it came from, as set (`https_proxy`, `HTTPS_PROXY`, …). */
  readonly variable: string;
}

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** The proxy for `target`, or undefined when it is reached directly. A malformed proxy variable is a usage error. */
export function proxyFor(target: URL, env: ProxyEnv): ChosenProxy | undefined {
  const scheme = target.protocol === 'https:' ? 'https' : target.protocol === 'http:' ? 'http' : undefined;
  if (!scheme) return undefined;
  const found = firstSet(env, `${scheme}_proxy`);
  if (!found) return undefined;
  const host = hostOf(target);
  if (isLoopback(host)) return undefined;
  const exceptions = firstSet(env, 'no_proxy');
  if (exceptions && bypassed(host, portOf(target), exceptions.value)) return undefined;
  return parseProxy(found.variable, found.value);
}

function firstSet(env: ProxyEnv, lower: string): { variable: string; value: string } | undefined {
  for (const variable of [lower, lower.toUpperCase()]) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return undefined;
}

/** The host name, lower case, without a trailing dot or IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function portOf(url: URL): string {
  return url.port || (DEFAULT_PORTS[url.protocol] ?? '');
}

export function isLoopback(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === '::1' ||
    /^(0{0,4}:){1,7}0{0,3}1$/.test(host) ||
    host === '::ffff:127.0.0.1'
  );
}

/**
 * NO_PROXY: entries separated by commas (or spaces). `*` matches every host; `example.com`, `.example.com` and
 * `*.example.com` match example.com and every name under it (curl); an IP address matches itself; `:port` after an
 * entry limits it to that port.
 */
export function bypassed(host: string, port: string, noProxy: string): boolean {
  return noProxy
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .some((entry) => {
      if (entry === '*') return true;
      const { name, port: only } = splitEntry(entry.toLowerCase());
      if (only !== undefined && only !== port) return false;
      const domain = name.replace(/^\*?\./, '').replace(/\.$/, '');
      if (domain === '') return false;
      return host === domain || host.endsWith(`.${domain}`);
    });
}

function splitEntry(entry: string): { name: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1] ?? '', ...(bracketed[2] ? { port: bracketed[2] } : {}) };
  // A bare IPv6 address has several colons and no port.
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { name: withPort[1] ?? '', port: withPort[2] ?? '' };
  return { name: entry };
}

function parseProxy(variable: string, value: string): ChosenProxy {
  // `proxy.corp:3128` without a scheme is an http proxy, as curl takes it.
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${variable} is not a proxy URL`,
      `set it to http://host:port (user:password@ before the host when the proxy asks for them)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${variable} names a ${url.protocol.slice(0, -1)} proxy; svcadm speaks to http:// and https:// proxies`,
    );
  }
  if (url.hostname === '') throw new UsageError(`${variable} names no proxy host`);
  return { url, display: `${url.hostname}:${url.port || DEFAULT_PORTS[url.protocol]}`, variable };
}
