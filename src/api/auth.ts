import type { AuthMethod } from '../config/credentials.js';
import { EXPIRY_MARGIN_MS, readCachedToken, tokenCacheKey, writeCachedToken } from '../config/token-cache.js';
import { NetworkError } from '../errors.js';
import { type ClientProof, clientProof } from './client-proof.js';
import { tokenErrorFrom } from './error-body.js';
import type { HttpClient } from './http.js';
import { jwtClaims } from './jwt-claims.js';

export interface TokenInfo {
  accessToken: string;
  expiresAt: number | undefined;
  scopes: string[];
  source: 'given' | 'cache' | 'token service';
}

export interface TokenSource {
  /** Whether a refused token can be replaced by a new one. */
  readonly refreshable: boolean;
  current(): Promise<TokenInfo>;
  /** A token fetched now, whatever is cached (`auth status --check`); a given token is what it is. */
  fresh(): Promise<TokenInfo>;
  /** Forgets a token the interface refused, so the next `current()` fetches a new one. */
  invalidate(accessToken: string): Promise<void>;
}

function scopesOf(accessToken: string, scope: string | undefined): string[] {
  const fromClaims = jwtClaims(accessToken)?.scope;
  const text = typeof fromClaims === 'string' ? fromClaims : (scope ?? '');
  return text.split(/\s+/).filter(Boolean);
}

/** A bearer token given with --token or SVCADM_TOKEN: used as it is. */
export class GivenToken implements TokenSource {
  readonly refreshable = false;
  constructor(private readonly accessToken: string) {}

  async current(): Promise<TokenInfo> {
    const exp = jwtClaims(this.accessToken)?.exp;
    return {
      accessToken: this.accessToken,
      expiresAt: typeof exp === 'number' ? exp * 1000 : undefined,
      scopes: scopesOf(this.accessToken, undefined),
      source: 'given',
    };
  }

  fresh(): Promise<TokenInfo> {
    return this.current();
  }

  async invalidate(): Promise<void> {}
}

/**
 * Client-credentials tokens, cached on disk per (token URL, client id, audience) until shortly before expiry, and
 * only for the secret or key that obtained them. Concurrent callers share one in-flight token request.
 */
export class ClientCredentialsTokens implements TokenSource {
  readonly refreshable = true;
  #memory: TokenInfo | undefined;
  #inflight: Promise<TokenInfo> | undefined;
  readonly #key: string;
  readonly #proof: ClientProof;

  constructor(
    private readonly http: HttpClient,
    private readonly auth: Extract<AuthMethod, { kind: 'client' }>,
    private readonly cacheDir: string,
    private readonly trace?: (line: string) => void,
  ) {
    this.#key = tokenCacheKey(auth.tokenUrl, auth.clientId, auth.audience);
    this.#proof = clientProof(
      auth.credential,
      { clientId: auth.clientId, tokenUrl: auth.tokenUrl, cacheKey: this.#key },
      http.settings.clock,
    );
  }

  /** Fetches a new token whatever the cache holds (`auth status --check`), and caches it. */
  async fresh(): Promise<TokenInfo> {
    const token = await this.#request();
    this.#memory = token;
    await this.#persist(token);
    return token;
  }

  async current(): Promise<TokenInfo> {
    const now = this.http.settings.clock.now();
    if (this.#memory?.expiresAt && this.#memory.expiresAt - EXPIRY_MARGIN_MS > now) return this.#memory;
    if (!this.#inflight) {
      this.#inflight = this.#load().finally(() => {
        this.#inflight = undefined;
      });
    }
    return this.#inflight;
  }

  async invalidate(accessToken: string): Promise<void> {
    if (this.#memory?.accessToken !== accessToken) return;
    this.#memory = undefined;
    await this.#persist(undefined);
  }

  async #load(): Promise<TokenInfo> {
    const cached = readCachedToken(this.cacheDir, this.#key, this.#proof.check, this.http.settings.clock.now());
    if (cached) {
      this.trace?.(
        `using the cached token for client ${this.auth.clientId} (expires ${new Date(cached.expiresAt).toISOString()})`,
      );
      this.#memory = {
        accessToken: cached.accessToken,
        expiresAt: cached.expiresAt,
        scopes: scopesOf(cached.accessToken, cached.scope),
        source: 'cache',
      };
      return this.#memory;
    }
    const fresh = await this.#request();
    this.#memory = fresh;
    await this.#persist(fresh);
    return fresh;
  }

  async #request(): Promise<TokenInfo> {
    const { tokenUrl, clientId, audience } = this.auth;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      ...(await this.#proof.fields()),
      audience,
    });
    const started = this.http.settings.clock.now();
    const res = await this.http.request({
      method: 'POST',
      url: new URL(tokenUrl),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      retry: 'token',
      traceBody: `grant_type=client_credentials client_id=${clientId} ${this.#proof.traceText} audience=${audience}`,
    });
    if (res.status < 200 || res.status >= 300) throw tokenErrorFrom(res);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.body) as Record<string, unknown>;
    } catch {
      throw new NetworkError(`malformed answer from the token service at ${tokenUrl}`);
    }
    const accessToken = body.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new NetworkError(`the token service at ${tokenUrl} answered without an access token`);
    }
    const exp = jwtClaims(accessToken)?.exp;
    const expiresAt =
      typeof body.expires_in === 'number'
        ? started + body.expires_in * 1000
        : typeof exp === 'number'
          ? exp * 1000
          : started + 5 * 60_000;
    const scope = typeof body.scope === 'string' ? body.scope : undefined;
    return { accessToken, expiresAt, scopes: scopesOf(accessToken, scope), source: 'token service' };
  }

  async #persist(token: TokenInfo | undefined): Promise<void> {
    try {
      await writeCachedToken(
        this.cacheDir,
        this.#key,
        token?.expiresAt
          ? {
              accessToken: token.accessToken,
              expiresAt: token.expiresAt,
              scope: token.scopes.join(' '),
              secretCheck: this.#proof.check,
            }
          : undefined,
        this.http.settings.clock.now(),
      );
    } catch (err) {
      this.trace?.(`could not write the token cache: ${(err as Error).message}`);
    }
  }
}
