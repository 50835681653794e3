// The form of a Standard Webhooks secret, apart from the signing (node:crypto): the options' parsing checks it at
// every start of a forwarding command, and must not load node:crypto for it (docs/decisions/2026-11-25-start-up-tricks.md).

/** The prefix of a Standard Webhooks secret: `whsec_<base64 of the key's bytes>`. */
export const STANDARD_SECRET_PREFIX = 'whsec_';
/** Canonical base64 (padding where due), as the Standard Webhooks libraries decode a `whsec_` secret's key. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A `whsec_` secret whose rest is not canonical base64: no Standard Webhooks library could take it (refused). */
export function isMalformedStandardSecret(secret: string): boolean {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return false;
  const rest = secret.slice(STANDARD_SECRET_PREFIX.length);
  return rest === '' || !BASE64.test(rest);
}
