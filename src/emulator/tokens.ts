import { type KeyObject, randomBytes } from 'node:crypto';
import { ClientAssertionVerifier, JWT_BEARER_ASSERTION } from './client-assertion.js';
import { HttpError, serviceError } from './http-util.js';
import type { JsonWebKeySet, JwtClaims, JwtSigner } from './jwt.js';

export interface EmulatorClient {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

export interface TokenGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export type TokenOutcome = { status: 200; body: TokenGrant } | { status: number; body: OAuthError };

export interface OAuthError {
  error: string;
  error_description: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** A public key registered on a client for `private_key_jwt` authentication. */
export interface ClientKey {
  clientId: string;
  key: KeyObject;
}

function invalidClient(description: string): TokenOutcome {
  return { status: 401, body: { error: 'invalid_client', error_description: description } };
}

/** Issues client-credentials tokens and authenticates interface requests. */
export class TokenService {
  /** Bumped by `revokeAll`; a token whose `jti` names an older generation is refused. */
  private generation = 0;
  private readonly clients = new Map<string, EmulatorClient>();
  private readonly verified = new Map<string, JwtClaims>();
  private readonly assertions: ClientAssertionVerifier;

  constructor(
    private readonly origin: string,
    private readonly signer: JwtSigner,
    clients: EmulatorClient[],
    private readonly ttlSeconds: number,
    private readonly now: () => number,
    /** Keys registered from the start; `resetClientKeys` comes back to them. */
    private readonly initialKeys: readonly ClientKey[] = [],
  ) {
    for (const client of clients) this.clients.set(client.clientId, client);
    this.assertions = new ClientAssertionVerifier((audience, host) => this.isIssuerUrl(audience, host), now);
    this.resetClientKeys();
  }

  /** Registers a public key on a client; returns how many it has, or undefined for an unknown client. */
  registerClientKey(clientId: string, key: KeyObject): number | undefined {
    if (!this.clients.has(clientId)) return undefined;
    return this.assertions.register(clientId, key);
  }

  resetClientKeys(): void {
    this.assertions.clear();
    for (const { clientId, key } of this.initialKeys) this.assertions.register(clientId, key);
  }

  jwks(): JsonWebKeySet {
    return this.signer.jwks();
  }

  get issuer(): string {
    return `${this.origin}/`;
  }

  get audience(): string {
    return `${this.origin}/api/v2/`;
  }

  /**
   * The audience is the interface's URL. Loopback spellings of the same port are accepted too, so that
   * `--domain localhost:PORT` works against an emulator that reports `127.0.0.1`.
   */
  isAcceptedAudience(audience: string, requestHost: string | undefined): boolean {
    return audience === this.audience || this.isOwnUrl(audience, ['/api/v2/'], requestHost);
  }

  /** The `aud` of a client assertion: the tenant's issuer URL, its origin with the trailing slash (api-notes). */
  isIssuerUrl(audience: string, requestHost: string | undefined): boolean {
    return audience.endsWith('/') && this.isOwnUrl(audience, ['/'], requestHost);
  }

  /** A URL of this emulator at one of `paths`: its origin, a loopback spelling of it, or the host the request used. */
  private isOwnUrl(text: string, paths: readonly string[], requestHost: string | undefined): boolean {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return false;
    }
    const own = new URL(this.origin);
    if (!paths.includes(url.pathname) || url.search !== '' || url.hash !== '') return false;
    if (url.port !== own.port && !(url.port === '' && own.port === '')) return false;
    return LOOPBACK_HOSTS.has(url.hostname) || url.host === requestHost;
  }

  /** Answers `POST /oauth/token` given its already-parsed parameters. */
  issue(
    params: Record<string, string>,
    basicAuth: { id: string; secret: string } | undefined,
    host?: string,
  ): TokenOutcome {
    const grantType = params.grant_type;
    if (grantType === undefined || grantType === '') {
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'Missing required parameter: grant_type' },
      };
    }
    if (grantType !== 'client_credentials') {
      return {
        status: 400,
        body: { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${grantType}` },
      };
    }
    const authenticated = this.authenticateClient(params, basicAuth, host);
    if (!('clientId' in authenticated)) return authenticated;
    const client = authenticated;
    const audience = params.audience;
    if (!audience) {
      return {
        status: 403,
        body: {
          error: 'access_denied',
          error_description: 'No audience parameter was provided, and no default audience has been configured',
        },
      };
    }
    if (!this.isAcceptedAudience(audience, host)) {
      return {
        status: 403,
        body: { error: 'access_denied', error_description: `Service not enabled within domain: ${audience}` },
      };
    }
    let scopes = client.scopes;
    if (params.scope !== undefined && params.scope.trim() !== '') {
      const requested = new Set(params.scope.trim().split(/\s+/));
      scopes = scopes.filter((scope) => requested.has(scope));
    }
    const iat = Math.floor(this.now() / 1000);
    const claims: JwtClaims = {
      iss: this.issuer,
      sub: `${client.clientId}@clients`,
      aud: audience,
      iat,
      exp: iat + this.ttlSeconds,
      scope: scopes.join(' '),
      azp: client.clientId,
      gty: 'client-credentials',
      jti: `${this.generation}.${randomBytes(9).toString('base64url')}`,
    };
    return {
      status: 200,
      body: {
        access_token: this.signer.sign(claims),
        token_type: 'Bearer',
        expires_in: this.ttlSeconds,
        scope: claims.scope,
      },
    };
  }

  /** The client by its secret, or by a signed assertion (`private_key_jwt`); else the OAuth error to answer. */
  private authenticateClient(
    params: Record<string, string>,
    basicAuth: { id: string; secret: string } | undefined,
    host: string | undefined,
  ): EmulatorClient | TokenOutcome {
    const assertionType = params.client_assertion_type;
    const assertion = params.client_assertion;
    if (assertionType !== undefined || assertion !== undefined) {
      if (params.client_secret !== undefined || basicAuth !== undefined) {
        return {
          status: 400,
          body: {
            error: 'invalid_request',
            error_description: 'Use one client authentication method: a client secret or a client assertion',
          },
        };
      }
      if (assertionType !== JWT_BEARER_ASSERTION) {
        return invalidClient(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`);
      }
      if (assertion === undefined || assertion === '') return invalidClient('Missing client_assertion');
      const checked = this.assertions.check(assertion, params.client_id, host);
      if (!checked.ok) return invalidClient(checked.description);
      return this.clients.get(checked.clientId) ?? invalidClient('Unknown client');
    }
    const clientId = params.client_id ?? basicAuth?.id;
    const clientSecret = params.client_secret ?? basicAuth?.secret;
    const client = clientId ? this.clients.get(clientId) : undefined;
    if (!client || !clientSecret || client.clientSecret !== clientSecret) {
      return { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
    }
    return client;
  }

  /** Every token issued so far stops working (401), so clients must fetch a new one. */
  revokeAll(): void {
    this.generation++;
  }

  /** Returns the token's granted scopes, or throws the service's 401. */
  authenticate(authorization: string | undefined, host: string | undefined): Set<string> {
    if (authorization === undefined || authorization.trim() === '') {
      throw new HttpError(
        401,
        serviceError(401, 'Missing authentication', undefined, { error: 'Missing authentication' }),
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw unauthorized('Invalid token.');
    const nowSeconds = Math.floor(this.now() / 1000);
    // RSA verification dominates a small GET; a verified token is remembered (expiry is still checked each time).
    const cached = this.verified.get(match[1]);
    const result =
      cached && cached.exp > nowSeconds
        ? { ok: true as const, claims: cached }
        : this.signer.verify(match[1], nowSeconds);
    if (result.ok && !cached) {
      if (this.verified.size >= 256) this.verified.clear();
      this.verified.set(match[1], result.claims);
    }
    if (!result.ok) {
      if (result.reason === 'signature')
        throw unauthorized('Invalid signature received for JSON Web Token validation.');
      if (result.reason === 'expired') throw unauthorized('Expired token received for JSON Web Token validation.');
      throw unauthorized('Invalid token.');
    }
    const { claims } = result;
    if (claims.iss !== this.issuer || !this.isAcceptedAudience(claims.aud, host)) throw unauthorized('Invalid token.');
    const jti = typeof claims.jti === 'string' ? claims.jti : '';
    if (!jti.startsWith(`${this.generation}.`)) throw unauthorized('Invalid token.');
    return new Set(claims.scope.split(' ').filter(Boolean));
  }
}

function unauthorized(message: string): HttpError {
  return new HttpError(401, serviceError(401, message, 'invalid_token'));
}

export function requireScope(granted: Set<string>, scope: string): void {
  if (!granted.has(scope)) {
    throw new HttpError(403, serviceError(403, `Insufficient scope, expected any of: ${scope}`, 'insufficient_scope'));
  }
}
