import { createHash, generateKeyPair, type KeyObject, sign, verify } from 'node:crypto';

export interface JwtClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  scope: string;
  [claim: string]: unknown;
}

export interface JsonWebKeySet {
  keys: Array<Record<string, unknown>>;
}

export type VerifyResult =
  | { ok: true; claims: JwtClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'claims' };

function base64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

/** A base64url JSON object of a JWT (header or claims); undefined when it is anything else. */
export function decodeJsonPart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The process's signing key, made on first use (see `JwtSigner.shared`). */
let shared: Promise<JwtSigner> | undefined;

/** The RFC 7638 thumbprint of an RSA public key, as a key id: the same key always gets the same `kid`. */
function thumbprint(publicKey: KeyObject): string {
  const { e, kty, n } = publicKey.export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ e, kty, n })).digest('base64url').slice(0, 16);
}

/** An RS256 signing key; its public half is published as a JWKS. */
export class JwtSigner {
  readonly kid: string;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  private constructor(kid: string, privateKey: KeyObject, publicKey: KeyObject) {
    this.kid = kid;
    this.privateKey = privateKey;
    this.publicKey = publicKey;
  }

  /** Makes a fresh 2048-bit key off the main thread (it can take a few hundred milliseconds). */
  static create(): Promise<JwtSigner> {
    return new Promise((resolve, reject) => {
      generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => {
        if (err) reject(err);
        else resolve(new JwtSigner(thumbprint(publicKey), privateKey, publicKey));
      });
    });
  }

  /**
   * One key for every emulator of the process: a test run starts dozens, and each key costs a few hundred
   * milliseconds. A token still works only on the emulator that issued it, whose origin (with its port) is the
   * token's issuer and audience.
   */
  static shared(): Promise<JwtSigner> {
    shared ??= JwtSigner.create().catch((err: unknown) => {
      shared = undefined;
      throw err;
    });
    return shared;
  }

  sign(claims: JwtClaims): string {
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: this.kid }));
    const payload = base64url(JSON.stringify(claims));
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), this.privateKey);
    return `${header}.${payload}.${base64url(signature)}`;
  }

  jwks(): JsonWebKeySet {
    const jwk = this.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    return { keys: [{ ...jwk, kid: this.kid, alg: 'RS256', use: 'sig' }] };
  }

  /** Checks structure, algorithm, signature and expiry; audience and revocation are the caller's business. */
  verify(token: string, nowSeconds: number): VerifyResult {
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'malformed' };
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    const header = decodeJsonPart(headerPart);
    const claims = decodeJsonPart(payloadPart);
    if (!header || !claims || header.alg !== 'RS256') return { ok: false, reason: 'malformed' };
    const signature = Buffer.from(signaturePart, 'base64url');
    const valid = verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), this.publicKey, signature);
    if (!valid) return { ok: false, reason: 'signature' };
    if (typeof claims.exp !== 'number' || typeof claims.aud !== 'string' || typeof claims.scope !== 'string') {
      return { ok: false, reason: 'claims' };
    }
    if (claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
    return { ok: true, claims: claims as JwtClaims };
  }
}
