import { ClientCredentialsTokens, GivenToken, type TokenSource } from './api/auth.js';
import { ApiClient } from './api/client.js';
import { HttpClient } from './api/http.js';
import { waitText } from './api/retry.js';
import {
  type ClientCredential,
  type CredentialFlags,
  type Credentials,
  credentialNotice,
  resolveCredentials,
} from './config/credentials.js';
import { configDir } from './config/paths.js';
import { secretFlagWarning } from './config/secret-flag.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { type Globals, PROFILES_VARIABLE } from './global-options.js';
import type { IOStreams } from './io/io-streams.js';
import type { Redactor } from './io/redaction.js';
import { packageVersion } from './version.js';

/**
 * The service side of one invocation, built on first use (cli/cli's Factory): a command that never talks to the
 * tenant never resolves credentials or opens a connection.
 */
export class Services {
  readonly configDir: string;
  readonly #ctx: Context;
  readonly #globals: Globals;
  readonly #io: IOStreams;
  #http: HttpClient | undefined;
  #credentials: Credentials | undefined;
  #api: ApiClient | undefined;

  constructor(
    ctx: Context,
    globals: Globals,
    io: IOStreams,
    /** Every secret and token this invocation learns goes here, so that stderr never shows one. */
    readonly secrets: Redactor,
    /**
     * The profile this invocation runs against, one tenant of a run across several (`--profiles`): taken as a unit,
     * its own token, cache entry and rate-limit state; the loop says once which variables it ignores.
     */
    readonly tenant?: string,
  ) {
    this.#ctx = ctx;
    this.#globals = globals;
    this.#io = io;
    this.configDir = configDir(ctx.env);
    secrets.add(globals.credentials.clientSecret);
    secrets.add(globals.credentials.token);
  }

  http(): HttpClient {
    let told = false;
    this.#http ??= new HttpClient({
      timeoutMs: this.#globals.timeoutMs,
      maxRetries: this.#globals.maxRetries,
      // A long wait the service asked for is said each time; retries after a refused or cut connection can add up
      // to seconds: said once, so that a wait is not silent.
      onRetry: ({ transport, reason, maxRetries, retry, waitMs, announce }) => {
        if (announce) {
          this.#io.notice(
            `svcadm: ${reason}: waiting ${waitText(waitMs)}, as the service asked (retry ${retry} of ${maxRetries})`,
          );
          return;
        }
        if (!transport || told) return;
        told = true;
        this.#io.notice(`svcadm: ${reason}; trying again (at most ${maxRetries} times, see --max-retries)`);
      },
      clock: this.#ctx.clock,
      random: this.#ctx.random,
      interrupt: this.#ctx.interrupt,
      userAgent: `svcadm/${packageVersion()} node/${process.versions.node}`,
      proxyEnv: this.#ctx.env,
      ...(this.#ctx.tracer ? { tracer: this.#ctx.tracer } : {}),
      ...(this.#io.trace ? { trace: this.#io.trace } : {}),
    });
    return this.#http;
  }

  credentials(): Credentials {
    if (!this.#credentials) {
      const across = this.#globals.tenants;
      if (across !== undefined && this.tenant === undefined) {
        // The command runs against one tenant: which one is not for svcadm to guess.
        if (across.refused !== undefined) throw across.refused;
        throw new UsageError(
          `${across.source === 'flag' ? '--profiles' : PROFILES_VARIABLE} is set, and this command runs against one tenant`,
          across.source === 'flag' ? 'name one with -p <profile>' : `unset ${PROFILES_VARIABLE}, or name one with -p`,
        );
      }
      if (this.tenant !== undefined) return this.#resolve({ profile: this.tenant }, false);
      if (this.#globals.credentials.clientSecret !== undefined) {
        this.#io.warn(secretFlagWarning('--client-secret', 'SVCADM_CLIENT_SECRET or a profile'));
      }
      return this.#resolve(this.#globals.credentials, true);
    }
    return this.#credentials;
  }

  #resolve(flags: CredentialFlags, announce: boolean): Credentials {
    const credentials = resolveCredentials(flags, this.#ctx.env, this.configDir);
    if (announce) {
      const notice = credentialNotice(credentials, this.#globals.credentials.profile ?? this.#ctx.env.SVCADM_PROFILE);
      if (notice !== undefined) this.#io.notice(notice);
    }
    for (const where of credentials.lineBreaksRemoved) {
      this.#io.trace?.(`removed a trailing line break from ${where}`);
    }
    const { auth } = credentials;
    this.secrets.add(auth.kind === 'token' ? auth.token : secretOf(auth.credential));
    this.#credentials = credentials;
    return credentials;
  }

  /** The credentials, if this invocation resolved them (for error hints). */
  get resolvedCredentials(): Credentials | undefined {
    return this.#credentials;
  }

  /** Client-credentials tokens for these settings, cached in the config folder. */
  clientTokens(auth: ConstructorParameters<typeof ClientCredentialsTokens>[1]): ClientCredentialsTokens {
    this.secrets.add(secretOf(auth.credential));
    return new ClientCredentialsTokens(this.http(), auth, this.configDir, this.#io.trace, (secret) =>
      this.secrets.add(secret),
    );
  }

  /** The profile the credentials came from, once they were resolved. */
  profileUsed(): string | undefined {
    return this.#credentials?.profileName;
  }

  tokens(): TokenSource {
    return this.api().tokens;
  }

  api(): ApiClient {
    if (!this.#api) {
      const creds = this.credentials();
      const tokens = creds.auth.kind === 'token' ? new GivenToken(creds.auth.token) : this.clientTokens(creds.auth);
      this.#api = new ApiClient(this.http(), tokens, creds.apiBase);
    }
    return this.#api;
  }

  close(): void {
    this.#http?.close();
  }
}

/** The shared secret a client proves itself with, if it uses one (a private key never leaves its file). */
function secretOf(credential: ClientCredential): string | undefined {
  return credential.kind === 'secret' ? credential.secret : undefined;
}
