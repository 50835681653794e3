import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { Interrupted, NetworkError, UsageError } from '../errors.js';
import { rateLimitSummary, retryWaitMs } from './retry-wait.js';

/** Which failures a request may be retried on. */
export type RetryPolicy =
  /** GET: 429, 408, 5xx and any network failure. */
  | 'read'
  /** DELETE: 429 and connections refused (the request never arrived). */
  | 'delete'
  /** The token POST: like a read, but never on a 4xx other than 429. */
  | 'token';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  retry: RetryPolicy;
  /** What --debug shows of the body; bodies are never traced as they are (they may hold secrets). */
  traceBody?: string;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Retries spent before this answer. */
  retries: number;
}

export interface StreamResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Set for 2xx answers: the open body. */
  stream?: IncomingMessage;
  /** Set for other answers: the whole body. */
  body?: string;
}

export interface HttpSettings {
  timeoutMs: number;
  maxRetries: number;
  now(): number;
  random(): number;
  interrupt: AbortSignal;
  userAgent: string;
  trace?: (line: string) => void;
}

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** A failure below HTTP: no status was received. */
class TransportFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hint?: string,
    /** False when trying again cannot help: a name that does not resolve, a certificate that does not match. */
    readonly retryable = true,
  ) {
    super(message);
  }
}

function describeFailure(err: NodeJS.ErrnoException, url: URL): TransportFailure {
  const host = url.host;
  switch (err.code) {
    case 'ENOTFOUND':
      return new TransportFailure(`cannot resolve ${url.hostname}`, err.code, 'check the tenant domain', false);
    case 'EAI_AGAIN':
      return new TransportFailure(`cannot resolve ${url.hostname}`, err.code, 'check the tenant domain');
    case 'ECONNREFUSED':
      return new TransportFailure(`connection refused by ${host}`, err.code);
    case 'ECONNRESET':
    case 'EPIPE':
      return new TransportFailure(`connection to ${host} was reset`, err.code);
    case 'ETIMEDOUT':
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return new TransportFailure(`cannot reach ${host} (${err.code})`, err.code);
    default:
      if (
        err.code === 'EPROTO' ||
        err.code?.startsWith('ERR_TLS') ||
        err.code?.includes('CERT') ||
        err.code?.startsWith('ERR_SSL')
      ) {
        return new TransportFailure(
          `TLS failure talking to ${host}: ${err.message}`,
          err.code ?? 'TLS',
          'check the tenant domain; a private CA goes in NODE_EXTRA_CA_CERTS',
          false,
        );
      }
      return new TransportFailure(`request to ${host} failed: ${err.message}`, err.code ?? 'UNKNOWN');
  }
}

/** The one HTTP layer: keep-alive, time limits, retries, the --debug trace. */
export class HttpClient {
  readonly #settings: HttpSettings;
  readonly #httpAgent = new http.Agent({ keepAlive: true });
  readonly #httpsAgent = new https.Agent({ keepAlive: true });

  constructor(settings: HttpSettings) {
    this.#settings = settings;
  }

  get settings(): HttpSettings {
    return this.#settings;
  }

  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
  }

  /** Sends a request, retrying as its policy allows; resolves with the last answer whatever its status. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    checkPayloadSize(req);
    const { maxRetries } = this.#settings;
    for (let attempt = 0; ; attempt++) {
      const started = this.#settings.now();
      let response: HttpResponse | undefined;
      let failure: TransportFailure | undefined;
      try {
        response = { ...(await this.#exchange(req)), retries: attempt };
        this.#traceExchange(req, response, started);
      } catch (err) {
        if (!(err instanceof TransportFailure)) throw err;
        failure = err;
        this.#trace(`${req.method} ${req.url.href} failed after ${this.#settings.now() - started} ms: ${err.message}`);
      }
      const reason = retryReason(req.retry, response, failure);
      if (reason === undefined || attempt >= maxRetries) {
        if (response) return response;
        const tried = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})` : '';
        throw new NetworkError(
          `${failure?.message ?? 'request failed'}${tried}`,
          failure?.hint,
          failure?.retryable === false,
        );
      }
      const wait = retryWaitMs(
        attempt,
        response?.headers,
        response?.status,
        this.#settings.now(),
        this.#settings.random,
      );
      this.#trace(`retrying in ${wait} ms (retry ${attempt + 1} of ${maxRetries}): ${reason}`);
      await this.sleep(wait);
    }
  }

  /** Opens a streaming GET. The time limit covers connecting and the response head, not the open body. */
  open(req: HttpRequest, signal?: AbortSignal): Promise<StreamResponse> {
    const started = this.#settings.now();
    return new Promise<StreamResponse>((resolve, reject) => {
      const request = this.#start(req, signal, reject, (res) => {
        clearTimeout(timer);
        const head = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers };
        this.#trace(
          `${req.method} ${req.url.href} → ${head.status} ${head.statusText} in ${this.#settings.now() - started} ms`,
        );
        if (head.status >= 200 && head.status < 300) {
          resolve({ ...head, stream: res });
          return;
        }
        readBody(res).then((body) => resolve({ ...head, body }), reject);
      });
      const timer = setTimeout(
        () => request.destroy(timeoutFailure(req.url, this.#settings.timeoutMs)),
        this.#settings.timeoutMs,
      );
      request.on('close', () => clearTimeout(timer));
      request.end();
    }).catch((err: unknown) => {
      if (err instanceof TransportFailure) throw new NetworkError(err.message, err.hint, !err.retryable);
      throw err;
    });
  }

  /** Waits, unless Ctrl-C comes first. */
  async sleep(ms: number, signal: AbortSignal = this.#settings.interrupt): Promise<void> {
    try {
      await delay(ms, undefined, { signal });
    } catch {
      if (this.#settings.interrupt.aborted) throw new Interrupted();
    }
  }

  #exchange(req: HttpRequest): Promise<Omit<HttpResponse, 'retries'>> {
    return new Promise((resolve, reject) => {
      const request = this.#start(req, undefined, reject, (res) => {
        readBody(res).then(
          (body) =>
            resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body }),
          (err: unknown) =>
            reject(err instanceof TransportFailure ? err : describeFailure(err as NodeJS.ErrnoException, req.url)),
        );
      });
      const timer = setTimeout(
        () => request.destroy(timeoutFailure(req.url, this.#settings.timeoutMs)),
        this.#settings.timeoutMs,
      );
      request.on('close', () => clearTimeout(timer));
      request.end(req.body);
    });
  }

  #start(
    req: HttpRequest,
    signal: AbortSignal | undefined,
    reject: (err: unknown) => void,
    onResponse: (res: IncomingMessage) => void,
  ): http.ClientRequest {
    const isHttps = req.url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': this.#settings.userAgent, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const abort = signal ? AbortSignal.any([signal, this.#settings.interrupt]) : this.#settings.interrupt;
    const request = (isHttps ? https : http).request(
      req.url,
      { method: req.method, headers, agent: isHttps ? this.#httpsAgent : this.#httpAgent, signal: abort },
      onResponse,
    );
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (this.#settings.interrupt.aborted) reject(new Interrupted());
      else if (err instanceof TransportFailure) reject(err);
      else if (err.name === 'AbortError') reject(err);
      else reject(describeFailure(err, req.url));
    });
    return request;
  }

  #traceExchange(req: HttpRequest, res: Omit<HttpResponse, 'retries'>, started: number): void {
    if (!this.#settings.trace) return;
    const body = req.traceBody ? ` (${req.traceBody})` : '';
    const limits = rateLimitSummary(res.headers);
    this.#trace(
      `${req.method} ${req.url.href}${body} → ${res.status} ${res.statusText} in ${this.#settings.now() - started} ms${limits ? `, ${limits}` : ''}`,
    );
  }

  #trace(line: string): void {
    this.#settings.trace?.(line);
  }
}

function timeoutFailure(url: URL, ms: number): TransportFailure {
  return new TransportFailure(`no answer from ${url.host} within ${ms / 1000}s`, 'TIMEOUT', 'raise --timeout');
}

function checkPayloadSize(req: HttpRequest): void {
  const size = Buffer.byteLength(req.url.href) + Buffer.byteLength(req.body ?? '');
  if (size > MAX_PAYLOAD_BYTES) {
    throw new UsageError(`the request would be ${size} bytes; the service accepts at most 1 MB`);
  }
}

function retryReason(
  policy: RetryPolicy,
  res: HttpResponse | undefined,
  failure: TransportFailure | undefined,
): string | undefined {
  if (failure) {
    if (!failure.retryable) return undefined;
    if (failure.code === 'TIMEOUT' && policy === 'delete') return undefined;
    if (policy === 'delete' && failure.code !== 'ECONNREFUSED') return undefined;
    return failure.message;
  }
  if (!res) return undefined;
  if (res.status === 429) return '429 rate limited';
  if (policy === 'delete') return undefined;
  if (res.status >= 500 || (res.status === 408 && policy === 'read')) return `${res.status} ${res.statusText}`;
  return undefined;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) {
        res.destroy(new TransportFailure('the answer is larger than 256 MB', 'TOO_LARGE'));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('aborted', () =>
      reject(new TransportFailure('the connection closed before the answer was complete', 'TRUNCATED')),
    );
    res.on('error', reject);
  });
}
