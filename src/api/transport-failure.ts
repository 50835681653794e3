import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { type ErrorDetails, NetworkError } from '../errors.js';
import type { ChosenProxy } from './proxy.js';

/** A failure below HTTP: no status was received. */
export class TransportFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hint?: string,
    /** True when trying again cannot help: a name that does not resolve, a certificate that does not match. */
    readonly permanent = false,
    readonly details: Pick<ErrorDetails, 'reason' | 'subject'> = {},
  ) {
    super(message);
  }

  toNetworkError(message = this.message): NetworkError {
    return new NetworkError(message, {
      hint: this.hint,
      permanent: this.permanent,
      reason: this.code === 'TIMEOUT' ? 'timeout' : this.details.reason,
      subject: this.details.subject,
    });
  }
}

/** OpenSSL's codes for a certificate chain that does not end at a CA this machine trusts (not a wrong name). */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

/** A socket's or TLS's error, in words that name the host and say whether trying again can help. */
export function describeFailure(err: NodeJS.ErrnoException, url: URL): TransportFailure {
  const host = url.host;
  switch (err.code) {
    case 'ENOTFOUND':
      return new TransportFailure(`cannot resolve ${url.hostname}`, err.code, 'check the tenant domain', true);
    case 'EAI_AGAIN':
      return new TransportFailure(`cannot resolve ${url.hostname}`, err.code, 'check the tenant domain');
    case 'ECONNREFUSED':
      return new TransportFailure(`connection refused by ${host}`, err.code);
    case 'ECONNRESET':
    case 'EPIPE':
      return new TransportFailure(`connection to ${host} was reset`, err.code);
    case 'ETIMEDOUT':
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return new TransportFailure(`cannot reach ${host} (${err.code})`, err.code);
    default:
      // TLS to a port that does not speak it (most often plain HTTP: OpenSSL reads "HTTP/1.1" as an unknown version).
      if (/wrong version number|packet length too long|http request/i.test(err.message)) {
        return new TransportFailure(
          `the server at ${host} does not speak TLS (is it plain http?)`,
          'PLAIN_HTTP',
          undefined,
          true,
          { reason: 'plain_http', subject: `http://${host}` },
        );
      }
      if (err.code !== undefined && UNTRUSTED_CERTIFICATE.has(err.code)) {
        return new TransportFailure(`TLS failure talking to ${host}: ${err.message}`, err.code, undefined, true, {
          reason: 'tls_unverified',
        });
      }
      if (
        err.code === 'EPROTO' ||
        err.code?.startsWith('ERR_TLS') ||
        err.code?.includes('CERT') ||
        err.code?.startsWith('ERR_SSL')
      ) {
        return new TransportFailure(
          `TLS failure talking to ${host}: ${err.message}`,
          err.code ?? 'TLS',
          'check the tenant domain; a private CA goes in NODE_EXTRA_CA_CERTS',
          true,
        );
      }
      return new TransportFailure(`request to ${host} failed: ${err.message}`, err.code ?? 'UNKNOWN');
  }
}

/** Failures to connect: with a proxy, the only connection svcadm opens is to the proxy. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/** A failure to connect to the proxy, named as the proxy's; undefined for any other error. */
export function describeProxyFailure(
  err: NodeJS.ErrnoException,
  proxy: ChosenProxy,
  url: URL,
): TransportFailure | undefined {
  if (!err.code || !CONNECT_FAILURES.has(err.code)) return undefined;
  const why = { ECONNREFUSED: 'connection refused', ENOTFOUND: 'its name does not resolve' }[err.code] ?? err.code;
  return new TransportFailure(
    `cannot reach the proxy ${proxy.display} (${proxy.variable}): ${why}`,
    err.code,
    proxyHint(proxy, url),
    err.code === 'ENOTFOUND',
  );
}

/** The proxy's own answer to CONNECT, when it is not 200. */
export function proxyRefusal(proxy: ChosenProxy, url: URL, status: number): TransportFailure {
  const answer = `${status} ${STATUS_CODES[status] ?? 'from the proxy'}`;
  if (status === 407) {
    const hasCredentials = proxy.url.username !== '' || proxy.url.password !== '';
    return new TransportFailure(
      hasCredentials
        ? `the proxy ${proxy.display} (${proxy.variable}) refused the credentials it was given (${answer})`
        : `the proxy ${proxy.display} (${proxy.variable}) asks for authentication (${answer})`,
      'PROXY_AUTH',
      `put them in the proxy URL: ${proxy.variable}=${proxy.url.protocol}//user:password@${proxy.display}`,
      true,
    );
  }
  return new TransportFailure(
    `the proxy ${proxy.display} (${proxy.variable}) refused to connect to ${url.host} (${answer})`,
    'PROXY_REFUSED',
    proxyHint(proxy, url),
    status < 500,
  );
}

function proxyHint(proxy: ChosenProxy, url: URL): string {
  return `check ${proxy.variable}, or add ${url.hostname} to NO_PROXY to reach it directly`;
}

/** The proxy's silence, past the time limit: a transient failure that names the proxy and the tunnel's target. */
export function proxySilence(proxy: ChosenProxy, url: URL, ms: number): TransportFailure {
  return new TransportFailure(
    `the proxy ${proxy.display} (${proxy.variable}) did not answer CONNECT to ${url.hostname}:${url.port || 443} within ${ms / 1000}s`,
    'TIMEOUT',
    proxyHint(proxy, url),
  );
}

export function timeoutFailure(url: URL, ms: number): TransportFailure {
  return new TransportFailure(`no answer from ${url.host} within ${ms / 1000}s`, 'TIMEOUT');
}

/** The connection closed before an answer's head came back. */
export function closedWithoutAnswer(url: URL): TransportFailure {
  return new TransportFailure(`${url.host} closed the connection without an answer`, 'NO_ANSWER');
}

/** An answer svcadm has no use for (101 Switching Protocols): a permanent failure, not retried. */
export function unusableAnswer(url: URL, res: IncomingMessage): TransportFailure {
  const status = `${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim();
  return new TransportFailure(
    `${url.host} answered ${status}, an answer svcadm cannot use`,
    'UNUSABLE',
    undefined,
    true,
  );
}

/** An answer longer than svcadm reads: a permanent failure, not retried. */
export function answerTooLarge(url: URL, limit: number): TransportFailure {
  return new TransportFailure(
    `the answer from ${url.host} is larger than ${sizeText(limit)}, the most svcadm reads`,
    'TOO_LARGE',
    undefined,
    true,
  );
}

/** The connection closed while the answer's body was coming. */
export function answerCutShort(): TransportFailure {
  return new TransportFailure('the connection closed before the answer was complete', 'TRUNCATED');
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}
