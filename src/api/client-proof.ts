import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { ClientCredential } from '../config/credentials.js';
import { readPrivateKey } from '../config/private-key.js';
import { UsageError } from '../errors.js';
import { nodeCrypto } from '../util/node-crypto.js';
import { sha256Of } from '../util/sha256.js';

/** How a client proves itself in a token request: the form fields, and a one-way check for the token cache. */
export interface ClientProof {
  /** Salted SHA-256 of what proves the client: a cached token is reused only with the same proof. */
  readonly check: string;
  /** What --debug shows of the proof. */
  readonly traceText: string;
  fields(): Promise<Record<string, string>>;
}

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** An assertion is good for a minute: enough for one token request, useless if it leaks. */
const ASSERTION_LIFETIME_S = 60;

/**
 * The `aud` of a client assertion: the issuer URL of the token service that receives it, its origin with a trailing
 * slash (`https://tenant.example.com/`), as the vendor's SDKs and CLI sign it. With `--auth-url` (a custom domain)
 * that is the auth origin, not the interface's domain: the assertion is addressed to whoever checks it.
 */
export function assertionAudience(tokenUrl: string): string {
  return `${new URL(tokenUrl).origin}/`;
}

function oneWay(salt: string, secret: string): string {
  return sha256Of(`svcadm token cache\0${salt}\0${secret}`).toString('base64url');
}

export function clientProof(
  credential: ClientCredential,
  client: { clientId: string; tokenUrl: string; cacheKey: string },
  clock: Clock,
): ClientProof {
  if (credential.kind === 'secret') {
    return {
      check: oneWay(client.cacheKey, credential.secret),
      traceText: 'client_secret=[redacted]',
      fields: async () => ({ client_secret: credential.secret }),
    };
  }
  const pem = readPrivateKey(credential.keyFile);
  return {
    check: oneWay(client.cacheKey, `private key\0${pem}`),
    traceText: `client_assertion=[signed ${credential.algorithm} with ${credential.keyFile}]`,
    async fields() {
      // jose loads only here: most runs use a secret or a cached token.
      const { SignJWT } = await import('jose/jwt/sign');
      const { createPrivateKey, randomUUID } = nodeCrypto();
      let key: KeyObject;
      try {
        key = createPrivateKey(pem);
      } catch (err) {
        throw new UsageError(
          `cannot use the private key ${credential.keyFile}: ${(err as Error).message}`,
          undefined,
          'file_unreadable',
        );
      }
      const now = Math.floor(clock.now() / 1000);
      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg: credential.algorithm, typ: 'JWT' })
        .setIssuer(client.clientId)
        .setSubject(client.clientId)
        .setAudience(assertionAudience(client.tokenUrl))
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + ASSERTION_LIFETIME_S)
        .sign(key);
      return { client_assertion_type: ASSERTION_TYPE, client_assertion: assertion };
    },
  };
}

/**
 * What of a signed assertion is secret: the whole of it (anyone holding it gets a token until it expires) and its
 * signature alone (the claims are guessable). Base64url and dots read the same JSON-escaped, form- or
 * percent-encoded, so each part has one form.
 */
export function assertionSecrets(assertion: string): string[] {
  const signature = assertion.split('.')[2];
  return signature ? [assertion, signature] : [assertion];
}

/** `text` (a token service's answer) with the assertion it was sent, and its signature, replaced by `[redacted]`. */
export function withoutAssertion(text: string, assertion: string): string {
  let out = text;
  for (const part of assertionSecrets(assertion)) out = out.split(part).join('[redacted]');
  return out;
}
