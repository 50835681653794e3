import type { AuthMethod } from '../config/credentials.js';
import { EXPIRY_MARGIN_MS, readCachedToken, tokenCacheKey, writeCachedToken } from '../config/token-cache.js';
import { withTokenLock } from '../config/token-lock.js';
import { ACCESS_TOKEN_RULE, isAccessToken } from '../domain/access-token.js';
import { errorCodeOf } from '../error-codes.js';
import { AuthError, UsageError } from '../errors.js';
import { inSpan } from '../traces/tracer.js';
import { assertionSecrets, type ClientProof, clientProof, withoutAssertion } from './client-proof.js';
import { tokenErrorFrom } from './error-body.js';
import { header } from './headers.js';
import type { HttpClient } from './http.js';
import type { HttpResponse } from './http-answer.js';
import { malformedAnswer, parseJsonAnswer } from './json-answer.js';
import { jwtClaims } from './jwt-claims.js';
import { waitText } from './retry.js';
import { expiryOfClaim, tokenLifetimeMs } from './token-lifetime.js';

export interface TokenInfo {
  accessToken: string;
  expiresAt: number | undefined;
  scopes: string[];
  source: 'given' | 'cache' | 'token service';
}

export interface TokenSource {
  /** Whether a refused token can be replaced by a new one. */
  readonly refreshable: boolean;
  /**
   * The token to send. With `signal`, the wait for one ends when it aborts (rejecting with its reason); a token
   * request nobody waits for any more is ended too.
   */
  current(signal?: AbortSignal): Promise<TokenInfo>;
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

/** A bearer token given with --token or SVCADM_TOKEN: used as it is, once it is known to be one. */
export class GivenToken implements TokenSource {
  readonly refreshable = false;
  constructor(private readonly accessToken: string) {
    if (!isAccessToken(accessToken)) {
      throw new UsageError(`the access token given with --token or SVCADM_TOKEN is not ${ACCESS_TOKEN_RULE}`);
    }
  }

  async current(): Promise<TokenInfo> {
    return {
      accessToken: this.accessToken,
      expiresAt: expiryOfClaim(jwtClaims(this.accessToken)?.exp),
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
/** A token request under way, shared by every caller that waits for it; ended once none of them waits any more. */
interface SharedRequest {
  token: Promise<TokenInfo>;
  stop: AbortController;
  /** Callers still waiting; a caller without a signal never stops waiting. */
  waiting: number;
}

export class ClientCredentialsTokens implements TokenSource {
  readonly refreshable = true;
  #memory: TokenInfo | undefined;
  #inflight: SharedRequest | undefined;
  readonly #key: string;
  readonly #proof: ClientProof;

  constructor(
    private readonly http: HttpClient,
    private readonly auth: Extract<AuthMethod, { kind: 'client' }>,
    private readonly cacheDir: string,
    private readonly trace?: (line: string) => void,
    /** Told of every secret this source handles: the tokens it hands out, the assertions it signs (to be scrubbed). */
    private readonly onSecret: (secret: string) => void = () => {},
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
    this.onSecret(token.accessToken);
    this.#memory = token;
    await this.#persist(token);
    return token;
  }

  async current(signal?: AbortSignal): Promise<TokenInfo> {
    const now = this.http.settings.clock.now();
    if (this.#memory?.expiresAt && this.#memory.expiresAt - EXPIRY_MARGIN_MS > now) return this.#memory;
    signal?.throwIfAborted();
    if (!this.#inflight) {
      const stop = new AbortController();
      const shared: SharedRequest = {
        token: this.#load(stop.signal).finally(() => {
          if (this.#inflight === shared) this.#inflight = undefined;
        }),
        stop,
        waiting: 0,
      };
      this.#inflight = shared;
    }
    const shared = this.#inflight;
    shared.waiting++;
    if (!signal) return shared.token;
    let onAbort = () => {};
    const given = new Promise<never>((_, reject) => {
      onAbort = () => {
        reject(signal.reason);
        if (--shared.waiting > 0) return;
        shared.stop.abort(signal.reason);
        if (this.#inflight === shared) this.#inflight = undefined;
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([shared.token, given]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async invalidate(accessToken: string): Promise<void> {
    if (this.#memory?.accessToken !== accessToken) return;
    this.#memory = undefined;
    await this.#persist(undefined);
  }

  /** The token from the cache or the token service, in a span that says which (traces on). */
  async #load(signal?: AbortSignal): Promise<TokenInfo> {
    const tracer = this.http.settings.tracer;
    if (!tracer?.on) return this.#loadUntraced(signal);
    return inSpan(tracer, 'svcadm token', {}, errorCodeOf, async (span) => {
      const token = await this.#loadUntraced(signal);
      span.setAttributes({ 'svcadm.token.source': token.source === 'cache' ? 'cache' : 'fetched' });
      return token;
    });
  }

  async #loadUntraced(signal?: AbortSignal): Promise<TokenInfo> {
    const cached = this.#fromCache();
    if (cached) return cached;
    const { clock } = this.http.settings;
    const lock = { clock, sleep: (ms: number) => this.http.sleep(ms, signal), trace: this.trace };
    return withTokenLock(this.cacheDir, this.#key, lock, async () => {
      // Another process may have cached one while this one waited for the lock.
      const shared = this.#fromCache();
      if (shared) return shared;
      const fresh = await this.#request(signal);
      this.onSecret(fresh.accessToken);
      this.#memory = fresh;
      await this.#persist(fresh);
      return fresh;
    });
  }

  #fromCache(): TokenInfo | undefined {
    const cached = readCachedToken(this.cacheDir, this.#key, this.#proof.check, this.http.settings.clock.now());
    if (!cached) return undefined;
    this.onSecret(cached.accessToken);
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

  async #request(signal?: AbortSignal): Promise<TokenInfo> {
    const { tokenUrl, clientId, audience } = this.auth;
    const proof = await this.#proof.fields();
    const assertion = proof.client_assertion;
    if (assertion !== undefined) for (const part of assertionSecrets(assertion)) this.onSecret(part);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, ...proof, audience });
    const started = this.http.settings.clock.now();
    const res = await this.http.request({
      method: 'POST',
      url: new URL(tokenUrl),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      retry: 'token',
      ...(signal ? { signal } : {}),
      traceBody: `grant_type=client_credentials client_id=${clientId} ${this.#proof.traceText} audience=${audience}`,
    });
    if (res.status < 200 || res.status >= 300) {
      // Scrubbed before the service's text is cut to length, which could leave most of an assertion.
      const err = tokenErrorFrom(
        assertion === undefined ? res : { ...res, body: withoutAssertion(res.body, assertion) },
        tokenUrl,
        audience,
      );
      throw this.auth.credential.kind === 'assertion' ? aboutTime(err, res, this.http.settings.clock.now()) : err;
    }
    // Checked before anything is kept: a malformed answer is never cached.
    const from = `the token service at ${tokenUrl}`;
    const answer = parseJsonAnswer(res.body, from);
    const body = Array.isArray(answer) ? {} : answer;
    const accessToken = body.access_token;
    if (typeof accessToken !== 'string') throw malformedAnswer('no access_token string', from);
    if (!isAccessToken(accessToken)) throw malformedAnswer(`the access token is not ${ACCESS_TOKEN_RULE}`, from);
    const expiresAt = started + tokenLifetimeMs(body.expires_in, expiryOfClaim(jwtClaims(accessToken)?.exp), started);
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

/** The clock skew the token service tolerates on an assertion (api-notes: about 10 s). */
const TOLERATED_SKEW_MS = 10_000;
const ABOUT_TIME = /\b(expired|expiry|exp|iat|nbf|not yet valid|future|clock|skew|time)\b/i;

/**
 * A refused private-key assertion is signed with this machine's clock: when the refusal is about time, or the token
 * service's `Date` differs by more than it tolerates, the clock is the likelier culprit than the key.
 */
function aboutTime(err: Error, res: HttpResponse, now: number): Error {
  if (!(err instanceof AuthError) || err.reason !== 'token_refused') return err;
  const date = Date.parse(header(res.headers, 'date') ?? '');
  const skew = Number.isNaN(date) ? undefined : date - now;
  const skewed = skew !== undefined && Math.abs(skew) > TOLERATED_SKEW_MS;
  if (!skewed && !ABOUT_TIME.test(err.message)) return err;
  const subject = skewed
    ? `${waitText(Math.abs(skew))} ${skew > 0 ? 'behind' : 'ahead of'} the token service's`
    : undefined;
  return new AuthError(err.message, { status: err.status, code: err.code, reason: 'clock_skew', subject });
}
