import { ClientCredentialsTokens, GivenToken, type TokenSource } from './api/auth.js';
import { ApiClient } from './api/client.js';
import { HttpClient } from './api/http.js';
import { type Credentials, resolveCredentials } from './config/credentials.js';
import { configDir } from './config/paths.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import type { GlobalOptions } from './global-options.js';
import { colorEnabled, jsonDocument, jsonLine, type OutputFormat, resolveFormat, writeOut } from './render/output.js';
import { type TableSpec, tableText } from './render/table-model.js';
import { parseDuration, parseIntegerOption } from './util/duration.js';
import { packageVersion } from './version.js';

/** What a command works with once the global options are known: output, notices, and the service. */
export class Runtime {
  readonly format: OutputFormat;
  /** Chosen with -o or --json rather than by the terminal test; only then do errors become a JSON envelope. */
  readonly formatChosen: boolean;
  readonly quiet: boolean;
  readonly debug: boolean;
  readonly configDir: string;
  readonly #ctx: Context;
  readonly #opts: GlobalOptions;
  #http: HttpClient | undefined;
  #credentials: Credentials | undefined;
  #api: ApiClient | undefined;

  constructor(ctx: Context, opts: GlobalOptions) {
    this.#ctx = ctx;
    this.#opts = opts;
    this.format = resolveFormat(opts, ctx.io.stdout);
    this.formatChosen = opts.output !== undefined || opts.json === true;
    this.quiet = opts.quiet === true;
    this.debug = opts.debug === true;
    this.configDir = configDir(ctx.env);
    // Validate eagerly: a bad value is a usage error before anything is sent.
    this.maxRetries;
    this.timeoutMs;
  }

  get ctx(): Context {
    return this.#ctx;
  }

  get options(): GlobalOptions {
    return this.#opts;
  }

  get maxRetries(): number {
    return this.#opts.maxRetries === undefined ? 5 : parseIntegerOption(this.#opts.maxRetries, '--max-retries', 0, 100);
  }

  get timeoutMs(): number {
    const ms = this.#opts.timeout === undefined ? 30_000 : parseDuration(this.#opts.timeout, '--timeout');
    if (ms <= 0) throw new UsageError('--timeout must be more than 0');
    return ms;
  }

  get colorOut(): boolean {
    return colorEnabled(this.#opts, this.#ctx.env, this.#ctx.io.stdout);
  }

  get colorErr(): boolean {
    return colorEnabled(this.#opts, this.#ctx.env, this.#ctx.io.stderr);
  }

  /** Progress is for people: only on a terminal, outside CI, and not with --quiet. */
  get showProgress(): boolean {
    return !this.quiet && this.#ctx.io.stderr.isTTY === true && !this.#ctx.env.CI;
  }

  /** A notice on stderr, unless --quiet. */
  notice(message: string): void {
    if (!this.quiet) this.#ctx.io.stderr.write(`${message}\n`);
  }

  /** A warning on stderr, even with --quiet. */
  warn(message: string): void {
    this.#ctx.io.stderr.write(`svcadm: warning: ${message}\n`);
  }

  trace(line: string): void {
    if (this.debug) this.#ctx.io.stderr.write(`svcadm: debug: ${line}\n`);
  }

  http(): HttpClient {
    this.#http ??= new HttpClient({
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      now: this.#ctx.now,
      random: this.#ctx.random,
      interrupt: this.#ctx.interrupt,
      userAgent: `svcadm/${packageVersion()} node/${process.versions.node}`,
      ...(this.debug ? { trace: (line: string) => this.trace(line) } : {}),
    });
    return this.#http;
  }

  credentials(): Credentials {
    if (!this.#credentials) {
      if (this.#opts.clientSecret !== undefined) {
        this.warn(
          '--client-secret leaks into shell history and the process list; prefer SVCADM_CLIENT_SECRET or a profile',
        );
      }
      this.#credentials = resolveCredentials(this.#opts, this.#ctx.env, this.configDir);
    }
    return this.#credentials;
  }

  tokens(): TokenSource {
    return this.api().tokens;
  }

  api(): ApiClient {
    if (!this.#api) {
      const creds = this.credentials();
      const tokens =
        creds.auth.kind === 'token'
          ? new GivenToken(creds.auth.token)
          : new ClientCredentialsTokens(
              this.http(),
              creds.auth,
              this.configDir,
              this.debug ? (l) => this.trace(l) : undefined,
            );
      this.#api = new ApiClient(this.http(), tokens, creds.apiBase);
    }
    return this.#api;
  }

  /** Writes data to stdout, waiting when the reader is slow. */
  async write(text: string): Promise<void> {
    await writeOut(this.#ctx.io.stdout, text);
  }

  /** One resource or one list body: JSON as it came, NDJSON one value per line, or the given table. */
  async print(value: unknown, table: () => TableSpec): Promise<void> {
    if (this.format === 'json') return this.write(jsonDocument(value));
    if (this.format === 'ndjson') {
      const items = Array.isArray(value) ? value : [value];
      for (const item of items) await this.write(jsonLine(item));
      return;
    }
    await this.printTable(table());
  }

  async printTable(spec: TableSpec): Promise<void> {
    const stdout = this.#ctx.io.stdout;
    if (stdout.isTTY) {
      const { renderTable } = await import('./render/table-view.js');
      return this.write(renderTable(spec, this.colorOut, stdout.columns ?? 100));
    }
    return this.write(tableText(spec));
  }

  close(): void {
    this.#http?.close();
  }
}
