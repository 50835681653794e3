import { createHmac } from 'node:crypto';
import { isMalformedStandardSecret, STANDARD_SECRET_PREFIX } from './standard-secret.js';

/** The header that signs each forwarded event: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'svcadm-signature';

/**
 * The signature of one delivery attempt: HMAC-SHA256, keyed with the secret's UTF-8 bytes, over `<t>.<body>` where
 * `t` is the attempt's time in Unix seconds (a retry is signed afresh). A receiver recomputes it over the raw body,
 * compares in constant time, and refuses a `t` too far from its clock (5 minutes) to stop replays.
 */
export function signatureHeader(secret: string, body: string | Uint8Array, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * The key of `webhook-signature`: the decoded bytes of a `whsec_<base64>` secret, as the Standard Webhooks libraries
 * read one; any other secret's UTF-8 bytes, which the libraries verify in their raw-key form. (`svcadm-signature`
 * keeps the whole secret string as its key.)
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(STANDARD_SECRET_PREFIX) && !isMalformedStandardSecret(secret)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** The signing of one forwarding run: its secret, and the Standard Webhooks key made from it once. */
export interface Signer {
  readonly secret: string;
  readonly key: Buffer;
}

export function signerOf(secret: string): Signer {
  return { secret, key: standardWebhooksKey(secret) };
}

/**
 * The signature headers of one attempt, made at one second: `svcadm-signature`, and Standard Webhooks'
 * `webhook-timestamp` (the same second) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`,
 * where the id is the attempt's `webhook-id`).
 */
export function signatureHeaders(
  signer: Signer,
  id: string,
  body: string | Uint8Array,
  unixSeconds: number,
): Record<string, string> {
  const standard = createHmac('sha256', signer.key).update(`${id}.${unixSeconds}.`).update(body).digest('base64');
  return {
    [SIGNATURE_HEADER]: signatureHeader(signer.secret, body, unixSeconds),
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${standard}`,
  };
}
