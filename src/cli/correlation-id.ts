import { UsageError } from '../errors.js';
import type { IOStreams } from '../io/io-streams.js';
import { nodeCrypto } from '../util/node-crypto.js';

/** What the service logs of `X-Correlation-ID`. */
export const CORRELATION_ID_LOGGED = 64;
/** Longer values are refused before sending: they would only be cut. */
export const CORRELATION_ID_MAX = 1024;

/** Visible ASCII and inner spaces: what an HTTP header value can carry unchanged. */
export const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** `--correlation-id` as given: visible ASCII, at most 1024 characters (exit 2 otherwise). */
export function parseCorrelationId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!HEADER_SAFE.test(value)) {
    throw new UsageError('--correlation-id must be visible ASCII characters (spaces only inside)');
  }
  if (value.length > CORRELATION_ID_MAX) {
    throw new UsageError(`--correlation-id must be at most ${CORRELATION_ID_MAX} characters, got ${value.length}`);
  }
  return value;
}

/** The id a write is sent with: the given one (with a warning when the logs will cut it), or a new UUID. */
export function correlationIdFor(given: string | undefined, io: IOStreams): string {
  const id = given ?? nodeCrypto().randomUUID();
  if (id.length > CORRELATION_ID_LOGGED) {
    io.warn(
      `the correlation id is ${id.length} characters; the tenant logs only the first ${CORRELATION_ID_LOGGED}: ${id.slice(0, CORRELATION_ID_LOGGED)}`,
    );
  }
  return id;
}
