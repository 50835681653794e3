import { ClientCredentialsTokens, GivenToken, type TokenSource } from './api/auth.js';
import { ApiClient } from './api/client.js';
import { HttpClient } from './api/http.js';
import { type Credentials, resolveCredentials } from './config/credentials.js';
import { configDir } from './config/paths.js';
import type { Context } from './context.js';
import type { Globals } from './global-options.js';
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
  ) {
    this.#ctx = ctx;
    this.#globals = globals;
    this.#io = io;
    this.configDir = configDir(ctx.env);
    secrets.add(globals.credentials.clientSecret);
    secrets.add(globals.credentials.token);
  }

  http(): HttpClient {
    this.#http ??= new HttpClient({
      timeoutMs: this.#globals.timeoutMs,
      maxRetries: this.#globals.maxRetries,
      clock: this.#ctx.clock,
      random: this.#ctx.random,
      interrupt: this.#ctx.interrupt,
      userAgent: `svcadm/${packageVersion()} node/${process.versions.node}`,
      ...(this.#io.trace ? { trace: this.#io.trace } : {}),
    });
    return this.#http;
  }

  credentials(): Credentials {
    if (!this.#credentials) {
      if (this.#globals.credentials.clientSecret !== undefined) {
        this.#io.warn(
          '--client-secret leaks into shell history and the process list; prefer SVCADM_CLIENT_SECRET or a profile',
        );
      }
      this.#credentials = resolveCredentials(this.#globals.credentials, this.#ctx.env, this.configDir);
      const { auth } = this.#credentials;
      this.secrets.add(auth.kind === 'token' ? auth.token : auth.clientSecret);
    }
    return this.#credentials;
  }

  /** Client-credentials tokens for these settings, cached in the config folder. */
  clientTokens(auth: ConstructorParameters<typeof ClientCredentialsTokens>[1]): ClientCredentialsTokens {
    this.secrets.add(auth.clientSecret);
    return new ClientCredentialsTokens(this.http(), auth, this.configDir, this.#io.trace, (token) =>
      this.secrets.add(token),
    );
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
