import { createHmac } from 'node:crypto';

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
