import { constants, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { decodeJsonPart } from './jwt.js';

/** `client_assertion_type` of private-key client authentication (RFC 7523). */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The algorithms the vendor accepts for client assertions (api-notes: Tokens), as node:crypto verifies them. */
const ALGORITHMS: Record<string, { hash: string; pss: boolean }> = {
  RS256: { hash: 'sha256', pss: false },
  RS384: { hash: 'sha384', pss: false },
  PS256: { hash: 'sha256', pss: true },
};

/** An assertion may expire at most this far ahead (seconds): it is meant for one token request, made now. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** Clock skew forgiven on `exp` ahead, `nbf` and `iat` (seconds): the service tolerates only a small one. */
export const LEEWAY_SECONDS = 10;
/** The documented size limits of an assertion and of its `iss`, `sub` and `jti` (api-notes, revised in round 3). */
export const MAX_ASSERTION_BYTES = 2048;
export const MAX_CLAIM_CHARACTERS = 64;
const AUD_RULE = "The client_assertion aud claim must be the tenant's URL with a trailing slash, as one string";
const MIN_MODULUS_BITS = 2048;

/** A PEM public key -> the key, or why it is refused (RSA, 2048 bits or more, public half only). */
export function parsePublicKey(pem: string): KeyObject | string {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    return 'this is a private key: register the public key (openssl rsa -in key.pem -pubout)';
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    return 'not a PEM public key';
  }
  if (key.asymmetricKeyType !== 'rsa')
    return `an RSA key is needed (RS256, RS384, PS256), not ${key.asymmetricKeyType}`;
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_MODULUS_BITS) return `the key has ${bits} bits; at least ${MIN_MODULUS_BITS} are needed`;
  return key;
}

export type AssertionCheck = { ok: true; clientId: string } | { ok: false; description: string };

function fail(description: string): AssertionCheck {
  return { ok: false, description };
}

/**
 * Checks `client_assertion` JWTs: the signature with a key registered on the client, `iss` = `sub` = the client,
 * `aud` the issuer URL (one string), `exp` present, not past and not far ahead, and a `jti` used once (remembered until `exp`).
 */
export class ClientAssertionVerifier {
  private readonly keys = new Map<string, KeyObject[]>();
  private readonly usedJtis = new Map<string, number>();

  constructor(
    /** Whether an `aud` value is this emulator's issuer URL (as reached through `requestHost`). */
    private readonly isIssuerUrl: (audience: string, requestHost: string | undefined) => boolean,
    private readonly now: () => number,
  ) {}

  register(clientId: string, key: KeyObject): number {
    const keys = [...(this.keys.get(clientId) ?? []), key];
    this.keys.set(clientId, keys);
    return keys.length;
  }

  /** Forgets every key and used `jti`. */
  clear(): void {
    this.keys.clear();
    this.usedJtis.clear();
  }

  check(assertion: string, clientIdParam: string | undefined, requestHost: string | undefined): AssertionCheck {
    if (Buffer.byteLength(assertion) > MAX_ASSERTION_BYTES) {
      return fail(`The client_assertion must be at most ${MAX_ASSERTION_BYTES} bytes`);
    }
    const parts = assertion.split('.');
    if (parts.length !== 3) return fail('client_assertion is not a JWT');
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    const header = decodeJsonPart(headerPart);
    const claims = decodeJsonPart(payloadPart);
    if (!header || !claims) return fail('client_assertion is not a JWT');
    const algorithm = typeof header.alg === 'string' ? ALGORITHMS[header.alg] : undefined;
    if (!algorithm) return fail(`Unsupported client_assertion algorithm; use ${Object.keys(ALGORITHMS).join(', ')}`);
    const { iss, sub } = claims;
    if (typeof iss !== 'string' || iss === '' || iss !== sub) {
      return fail('The client_assertion iss and sub claims must both be the client id');
    }
    if (iss.length > MAX_CLAIM_CHARACTERS) {
      return fail(`The client_assertion iss and sub claims must be at most ${MAX_CLAIM_CHARACTERS} characters`);
    }
    if (clientIdParam !== undefined && clientIdParam !== iss) {
      return fail('client_id does not match the client_assertion iss claim');
    }
    const keys = this.keys.get(iss);
    if (!keys) return fail('No public key is registered for this client');
    const data = Buffer.from(`${headerPart}.${payloadPart}`);
    const signature = Buffer.from(signaturePart, 'base64url');
    const signed = keys.some((key) =>
      verify(
        algorithm.hash,
        data,
        algorithm.pss
          ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
          : key,
        signature,
      ),
    );
    if (!signed) return fail('Invalid client_assertion signature');
    if (typeof claims.aud !== 'string' || !this.isIssuerUrl(claims.aud, requestHost)) return fail(AUD_RULE);
    const nowSeconds = Math.floor(this.now() / 1000);
    const { exp, nbf, iat, jti } = claims;
    if (typeof exp !== 'number') return fail('The client_assertion has no exp claim');
    if (exp <= nowSeconds) return fail('The client_assertion has expired');
    if (exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + LEEWAY_SECONDS) {
      return fail(`The client_assertion exp claim is more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds ahead`);
    }
    if (typeof nbf === 'number' && nbf > nowSeconds + LEEWAY_SECONDS)
      return fail('The client_assertion is not valid yet');
    if (typeof iat === 'number' && iat > nowSeconds + LEEWAY_SECONDS)
      return fail('The client_assertion iat is in the future');
    if (typeof jti !== 'string' || jti === '') return fail('The client_assertion has no jti claim');
    if (jti.length > MAX_CLAIM_CHARACTERS) {
      return fail(`The client_assertion jti claim must be at most ${MAX_CLAIM_CHARACTERS} characters`);
    }
    for (const [used, until] of this.usedJtis) if (until <= nowSeconds) this.usedJtis.delete(used);
    const replayKey = `${iss}\u0000${jti}`;
    if (this.usedJtis.has(replayKey)) return fail('The client_assertion jti has already been used');
    this.usedJtis.set(replayKey, exp);
    return { ok: true, clientId: iss };
  }
}
