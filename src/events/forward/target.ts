import { isLoopbackHost } from '../../config/tenant.js';
import type { Env } from '../../context.js';
import { UsageError } from '../../errors.js';
import { nodeCrypto } from '../../util/node-crypto.js';
import { isMalformedStandardSecret, STANDARD_SECRET_PREFIX } from './standard-secret.js';

/** Stands in for --forward-secret (the command line leaks into shell history and the process list). */
export const FORWARD_SECRET_ENV = 'SVCADM_FORWARD_SECRET';
const SECRET_MIN = 16;
const SECRET_MAX = 1024;

/** Where `events tail --forward-to` delivers, and the secret that signs each delivery. */
export interface ForwardTarget {
  url: URL;
  secret: string;
  /** Made for this run (and printed at start), not given. */
  generated: boolean;
  /** Given with --forward-secret, which leaks (warned at start). */
  fromFlag?: true;
}

export interface RawForwardOptions {
  forwardTo?: string;
  forwardSecret?: string;
}

/** `--forward-to`: https anywhere, plain http only to loopback (as for the tenant); no credentials in the URL. */
export function parseForwardUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid --forward-to '${text}': expected a URL such as http://localhost:3000/webhooks`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid --forward-to '${text}': only https:// (or http:// on loopback) is supported`);
  }
  if (url.username || url.password) {
    throw new UsageError('--forward-to must not carry a user name or password', 'check the svcadm-signature instead');
  }
  if (url.hash) throw new UsageError(`invalid --forward-to '${text}': a #fragment is never sent`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing plain http to ${url.hostname}: events would cross the network unencrypted`,
      'use https://, or http:// only for loopback hosts (127.0.0.1, ::1, localhost)',
    );
  }
  return url;
}

function parseSecret(secret: string, where: string): string {
  if (!/^[\x21-\x7e]+$/.test(secret) || secret.length < SECRET_MIN || secret.length > SECRET_MAX) {
    throw new UsageError(`${where} must be ${SECRET_MIN} to ${SECRET_MAX} visible ASCII characters without spaces`);
  }
  if (isMalformedStandardSecret(secret)) {
    throw new UsageError(
      `${where} starts with ${STANDARD_SECRET_PREFIX} but the rest is not base64: a Standard Webhooks secret is ${STANDARD_SECRET_PREFIX}<base64 of its key>`,
    );
  }
  return secret;
}

/** The forwarding of one run, or undefined without --forward-to. The secret: flag, environment, else a new one. */
export function parseForwardTarget(raw: RawForwardOptions, env: Env): ForwardTarget | undefined {
  if (raw.forwardTo === undefined) {
    if (raw.forwardSecret !== undefined) throw new UsageError('--forward-secret needs --forward-to');
    return undefined;
  }
  const url = parseForwardUrl(raw.forwardTo);
  if (raw.forwardSecret !== undefined) {
    return { url, secret: parseSecret(raw.forwardSecret, '--forward-secret'), generated: false, fromFlag: true };
  }
  const fromEnv = env[FORWARD_SECRET_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { url, secret: parseSecret(fromEnv, FORWARD_SECRET_ENV), generated: false };
  }
  // A Standard Webhooks secret: the `whsec_` libraries take it as it is printed.
  return {
    url,
    secret: `${STANDARD_SECRET_PREFIX}${nodeCrypto().randomBytes(24).toString('base64')}`,
    generated: true,
  };
}
