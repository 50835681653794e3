import http, { type IncomingHttpHeaders, type IncomingMessage, STATUS_CODES } from 'node:http';
import type https from 'node:https';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { Clock, Timer } from '../clock.js';
import { type ErrorDetails, interruption, NetworkError, UsageError } from '../errors.js';
import { rateLimitSummary } from './headers.js';
import { type ChosenProxy, type ProxyEnv, proxyFor } from './proxy.js';
import { announcesWait, capsWaits, classify, type RetryPolicy, retryWaitMs } from './retry.js';

export type { RetryPolicy } from './retry.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface HttpRequest {
  method: HttpMethod;
  url: URL;
  headers?: Record<string, string>;
  /** A string is sent as UTF-8; bytes as they are. */
  body?: string | Uint8Array;
  retry: RetryPolicy;
  /** What --debug shows of the body; bodies are never traced as they are (they may hold secrets). */
  traceBody?: string;
  /** Headers made afresh for each attempt, over `headers` (a signature that carries the attempt's time). */
  attemptHeaders?: () => Record<string, string>;
  /** Told before each wait for a retry, in place of the client's `onRetry`: a command that shows its own attempts. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told when an attempt has been sent, and when an answer's head came back (a write whose outcome may be unknown). */
  onWire?: (state: 'sent' | 'answered') => void;
  /** A larger answer is a failure; default MAX_ANSWER_BYTES. */
  maxResponseBytes?: number;
  /**
   * Only the status counts (an app acknowledging an event): the answer is taken when its head arrives; the body is
   * drained and dropped, and one longer than `maxResponseBytes` closes the connection.
   */
  statusOnly?: boolean;
  /** Never through a proxy: the app `events tail --forward-to` names is local. */
  direct?: boolean;
  /**
   * One request at a time to this origin, in order (the forwarder's): they share an agent of one socket, so that a
   * request made ahead (`hold`) is handed the socket as soon as the one before it frees it.
   */
  sequential?: boolean;
  /** The first attempt's request, made ahead by `hold` from this same request: sent when it is still usable. */
  held?: HeldRequest;
  /** Over the settings' --max-retries and --timeout: a caller with limits of its own (the forwarder's). */
  maxRetries?: number;
  timeoutMs?: number;
  /** Over the service's 1 MB: a request to someone else (the app of --forward-to) with a limit of its own. */
  maxRequestBytes?: number;
  /**
   * The caller's own stop besides Ctrl-C (`--duration`): it ends the attempt, the tunnel and the waits between
   * retries, and the request rejects with its reason.
   */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Retries spent before this answer. */
  retries: number;
  /** Set when the answer asked for a longer wait than svcadm takes (MAX_WAIT_MS), so it was not retried. */
  waitRefused?: RefusedWait;
}

/** A wait the service asked for and svcadm would not take: how long, and when it ends (epoch ms). */
export interface RefusedWait {
  waitMs: number;
  until: number;
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

/** A retry about to happen, for whoever tells the user. */
export interface RetryNotice {
  /** 1-based. */
  retry: number;
  maxRetries: number;
  waitMs: number;
  reason: string;
  /** True when no HTTP answer came at all (refused, reset, timed out). */
  transport: boolean;
  /** True when the server asked for this wait and it is long enough to be said (`announcesWait`). */
  announce: boolean;
}

export interface HttpSettings {
  timeoutMs: number;
  maxRetries: number;
  onRetry?: (notice: RetryNotice) => void;
  clock: Clock;
  random(): number;
  interrupt: AbortSignal;
  userAgent: string;
  trace?: (line: string) => void;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (api/proxy.ts); without it every request goes directly. */
  proxyEnv?: ProxyEnv;
}

export const MAX_PAYLOAD_BYTES = 1024 * 1024;
/**
 * The most of one answer (other than the event stream) svcadm reads: four times the largest payload the service
 * accepts. Whatever a server sends, memory stays bounded; a larger answer is a permanent failure, not retried.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** A failure below HTTP: no status was received. */
class TransportFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hint?: string,
    /** True when trying again cannot help: a name that does not resolve, a certificate that does not match. */
    readonly permanent = false,
    readonly details: Pick<ErrorDetails, 'reason' | 'subject'> = {},
  ) {
    super(message);
  }

  toNetworkError(message = this.message): NetworkError {
    return new NetworkError(message, {
      hint: this.hint,
      permanent: this.permanent,
      reason: this.code === 'TIMEOUT' ? 'timeout' : this.details.reason,
      subject: this.details.subject,
    });
  }
}

/** OpenSSL's codes for a certificate chain that does not end at a CA this machine trusts (not a wrong name). */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

function describeFailure(err: NodeJS.ErrnoException, url: URL): TransportFailure {
  const host = url.host;
  switch (err.code) {
    case 'ENOTFOUND':
      return new TransportFailure(`cannot resolve ${url.hostname}`, err.code, 'check the tenant domain', true);
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
      // TLS to a port that does not speak it (most often plain HTTP: OpenSSL reads "HTTP/1.1" as an unknown version).
      if (/wrong version number|packet length too long|http request/i.test(err.message)) {
        return new TransportFailure(
          `the server at ${host} does not speak TLS (is it plain http?)`,
          'PLAIN_HTTP',
          undefined,
          true,
          { reason: 'plain_http', subject: `http://${host}` },
        );
      }
      if (err.code !== undefined && UNTRUSTED_CERTIFICATE.has(err.code)) {
        return new TransportFailure(`TLS failure talking to ${host}: ${err.message}`, err.code, undefined, true, {
          reason: 'tls_unverified',
        });
      }
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
          true,
        );
      }
      return new TransportFailure(`request to ${host} failed: ${err.message}`, err.code ?? 'UNKNOWN');
  }
}

/** Failures to connect: with a proxy, the only connection svcadm opens is to the proxy. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

function describeProxyFailure(err: NodeJS.ErrnoException, proxy: ChosenProxy, url: URL): TransportFailure | undefined {
  if (!err.code || !CONNECT_FAILURES.has(err.code)) return undefined;
  const why = { ECONNREFUSED: 'connection refused', ENOTFOUND: 'its name does not resolve' }[err.code] ?? err.code;
  return new TransportFailure(
    `cannot reach the proxy ${proxy.display} (${proxy.variable}): ${why}`,
    err.code,
    proxyHint(proxy, url),
    err.code === 'ENOTFOUND',
  );
}

/** The proxy's own answer to CONNECT, when it is not 200. */
function proxyRefusal(proxy: ChosenProxy, url: URL, status: number): TransportFailure {
  const answer = `${status} ${STATUS_CODES[status] ?? 'from the proxy'}`;
  if (status === 407) {
    const hasCredentials = proxy.url.username !== '' || proxy.url.password !== '';
    return new TransportFailure(
      hasCredentials
        ? `the proxy ${proxy.display} (${proxy.variable}) refused the credentials it was given (${answer})`
        : `the proxy ${proxy.display} (${proxy.variable}) asks for authentication (${answer})`,
      'PROXY_AUTH',
      `put them in the proxy URL: ${proxy.variable}=${proxy.url.protocol}//user:password@${proxy.display}`,
      true,
    );
  }
  return new TransportFailure(
    `the proxy ${proxy.display} (${proxy.variable}) refused to connect to ${url.host} (${answer})`,
    'PROXY_REFUSED',
    proxyHint(proxy, url),
    status < 500,
  );
}

function proxyHint(proxy: ChosenProxy, url: URL): string {
  return `check ${proxy.variable}, or add ${url.hostname} to NO_PROXY to reach it directly`;
}

/** The request option that ends a tunnel still waiting for the proxy's answer to CONNECT (`proxyAgent`). */
const TUNNEL_STOP = 'svcadmTunnelStop';

/** The proxy's silence, past the time limit: a transient failure that names the proxy and the tunnel's target. */
function proxySilence(proxy: ChosenProxy, url: URL, ms: number): TransportFailure {
  return new TransportFailure(
    `the proxy ${proxy.display} (${proxy.variable}) did not answer CONNECT to ${url.hostname}:${url.port || 443} within ${ms / 1000}s`,
    'TIMEOUT',
    proxyHint(proxy, url),
  );
}

/**
 * The agent that tunnels requests through `proxy` (CONNECT), loaded only when a proxy applies. svcadm speaks plain
 * http only to loopback hosts, which never go through a proxy, so in practice every proxied target is https.
 *
 * node:http cannot end a request whose socket the agent has not handed over yet (`destroy` waits for it), and
 * https-proxy-agent waits for the proxy's answer without a limit: a proxy that accepts and never answers would hold
 * the request, and svcadm, forever. So each tunnel is given the request's stop (TUNNEL_STOP): it ends the wait and
 * closes the connection to the proxy.
 */
async function proxyAgent(proxy: URL): Promise<http.Agent> {
  const { HttpsProxyAgent } = await import('https-proxy-agent');
  type ConnectOptions = Parameters<InstanceType<typeof HttpsProxyAgent>['connect']>[1];
  class StoppableTunnels extends HttpsProxyAgent<string> {
    override async connect(req: http.ClientRequest, opts: ConnectOptions) {
      const stop = (opts as ConnectOptions & { [TUNNEL_STOP]?: AbortSignal })[TUNNEL_STOP];
      if (!stop) return super.connect(req, opts);
      stop.throwIfAborted();
      // The connection to the proxy is opened at once (before the agent's first await), with these options: for the
      // time of that call they carry a signal that destroys it.
      const own = new AbortController();
      const shared = this.connectOpts;
      this.connectOpts = { ...shared, signal: own.signal };
      let tunnel: Promise<Socket>;
      try {
        tunnel = super.connect(req, opts);
      } finally {
        this.connectOpts = shared;
      }
      let onStop = () => {};
      const stopped = new Promise<never>((_, reject) => {
        onStop = () => {
          own.abort(stop.reason);
          reject(stop.reason);
        };
        stop.addEventListener('abort', onStop, { once: true });
      });
      try {
        return await Promise.race([tunnel, stopped]);
      } finally {
        stop.removeEventListener('abort', onStop);
        // A tunnel that opens after all is closed: nobody will use it.
        if (stop.aborted)
          void tunnel.then(
            (socket) => socket.destroy(),
            () => {},
          );
      }
    }
  }
  return new StoppableTunnels(proxy.href, { keepAlive: true });
}

/** How one request leaves: the agent, and the proxy it goes through if any. */
interface Route {
  agent: http.Agent;
  proxy?: ChosenProxy;
}

/**
 * node:https, loaded on first use: a run that sends nothing, or only plain http, does without it (2.6 ms CPU of
 * `policies get -o json` against the bench's plain-http emulator; docs/decisions/2026-11-25-start-up-tricks.md).
 */
function httpsModule(): typeof https {
  return process.getBuiltinModule('node:https');
}

/** The one HTTP layer: keep-alive, time limits, retries, the --debug trace. */
export class HttpClient {
  readonly #settings: HttpSettings;
  readonly #httpAgent = new http.Agent({ keepAlive: true });
  readonly #httpRoute: Route = { agent: this.#httpAgent };
  /** The agents of `sequential` requests (one socket each), made on first use. */
  readonly #sequentialRoutes: { http?: Route; https?: Route } = {};
  // node:https (and TLS under it) is loaded the first time an https URL is asked for: a loopback tenant never needs it.
  #httpsAgent: https.Agent | undefined;
  readonly #proxyAgents = new Map<string, Promise<http.Agent>>();
  /**
   * Requests in flight with no signal of their own: Ctrl-C ends them through one listener on the interrupt, not one
   * AbortSignal listener per request (about 12 µs each, paid per forwarded event). An array, not a Set: a Set's
   * table is made anew as requests come and go, and the old table keeps a link to the new one and the requests it
   * held, so one old table that outlived a minor collection kept every later request alive through the next ones
   * (a forwarding tail promoted 28 MB in 10,000 events: docs/decisions/2026-11-26-forwarding-memory.md).
   */
  readonly #interruptible: http.ClientRequest[] = [];
  #interruptListened = false;
  #lastUrl: { href: string; options: http.RequestOptions } | undefined;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
  }

  get settings(): HttpSettings {
    return this.#settings;
  }

  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent?.destroy();
    this.#sequentialRoutes.http?.agent.destroy();
    this.#sequentialRoutes.https?.agent.destroy();
    for (const agent of this.#proxyAgents.values())
      void agent.then(
        (a) => a.destroy(),
        () => {},
      );
  }

  /** How the request leaves: at once when directly, once the tunnelling agent is loaded when through a proxy. */
  #route(req: HttpRequest): Route | Promise<Route> {
    const { proxyEnv } = this.#settings;
    const proxy = req.direct || !proxyEnv ? undefined : proxyFor(req.url, proxyEnv);
    if (!proxy) {
      if (req.sequential) return this.#sequentialRoute(req.url.protocol === 'https:');
      return req.url.protocol === 'https:' ? this.#httpsRoute : this.#httpRoute;
    }
    const key = `${req.url.protocol} ${proxy.url.href}`;
    let agent = this.#proxyAgents.get(key);
    if (!agent) {
      agent = proxyAgent(proxy.url);
      this.#proxyAgents.set(key, agent);
    }
    return agent.then((tunnels) => ({ agent: tunnels, proxy }));
  }

  get #httpsRoute(): Route {
    this.#httpsAgent ??= new (httpsModule().Agent)({ keepAlive: true });
    return { agent: this.#httpsAgent };
  }

  #sequentialRoute(secure: boolean): Route {
    const routes = this.#sequentialRoutes;
    const options = { keepAlive: true, maxSockets: 1 };
    if (secure) routes.https ??= { agent: new (httpsModule().Agent)(options) };
    else routes.http ??= { agent: new http.Agent(options) };
    return (secure ? routes.https : routes.http) as Route;
  }

  /**
   * Makes a `sequential` request's first attempt now and holds it unsent: while the request before it is with the
   * server, node:http builds it and queues it for the socket, which it then gets the moment the one before frees it;
   * `request({ ...req, held })` only sends it. The caller discards it (`discard`) before it sends anything else to
   * that origin, or that would wait behind it. Undefined when it cannot be held (not direct and sequential).
   */
  hold(req: HttpRequest): HeldRequest | undefined {
    if (!req.sequential || !req.direct) return undefined;
    checkPayloadSize(req, req.maxRequestBytes);
    return this.#attempt(req, this.#sequentialRoute(req.url.protocol === 'https:'));
  }

  /** Sends a request, retrying as its policy allows; resolves with the last answer whatever its status. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    checkPayloadSize(req, req.maxRequestBytes);
    const { clock } = this.#settings;
    const maxRetries = req.maxRetries ?? this.#settings.maxRetries;
    const chosen = this.#route(req);
    const route = chosen instanceof Promise ? await chosen : chosen;
    const via = viaText(route);
    for (let attempt = 0; ; attempt++) {
      req.signal?.throwIfAborted();
      const started = clock.now();
      let response: HttpResponse | undefined;
      let failure: TransportFailure | undefined;
      try {
        const held = attempt === 0 && req.held instanceof Attempt && req.held.usable ? req.held : undefined;
        response = await (held ?? this.#attempt(req, route)).send(req.attemptHeaders?.());
        response.retries = attempt;
        this.#traceExchange(req, response, started, via);
        // The last attempt, under a policy that never refuses a wait as too long: the answer is all there is to it.
        if (attempt >= maxRetries && capsWaits(req.retry)) return response;
      } catch (err) {
        if (!(err instanceof TransportFailure)) throw err;
        failure = err;
        this.#trace(`${req.method} ${req.url.href}${via} failed after ${clock.now() - started} ms: ${err.message}`);
      }
      const verdict = classify(req.retry, response ?? { failure: failure as TransportFailure }, clock.now());
      if (!verdict.retry || attempt >= maxRetries) {
        if (response && verdict.tooLong && verdict.askedMs !== undefined) {
          response.waitRefused = { waitMs: verdict.askedMs, until: clock.now() + verdict.askedMs };
          return response;
        }
        if (response) return response;
        const tried = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})` : '';
        throw (failure as TransportFailure).toNetworkError(`${failure?.message}${tried}`);
      }
      const wait = retryWaitMs(attempt, verdict, this.#settings.random);
      this.#trace(`retrying in ${wait} ms (retry ${attempt + 1} of ${maxRetries}): ${verdict.reason}`);
      const notice = {
        retry: attempt + 1,
        maxRetries,
        waitMs: wait,
        reason: verdict.reason,
        transport: !response,
        announce: announcesWait(verdict, wait),
      };
      (req.onRetry ?? this.#settings.onRetry)?.(notice);
      await this.sleep(wait, req.signal);
    }
  }

  /** Opens a streaming GET. The time limit covers connecting and the response head, not the open body. */
  async open(req: HttpRequest, signal?: AbortSignal): Promise<StreamResponse> {
    const { clock } = this.#settings;
    const route = await this.#route(req);
    const started = clock.now();
    return new Promise<StreamResponse>((resolve, reject) => {
      const { request, startTimer } = this.#start(req, route, signal, reject, (res) => {
        timer.cancel();
        const head = { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers };
        this.#trace(
          `${req.method} ${req.url.href}${viaText(route)} → ${head.status} ${head.statusText} in ${clock.now() - started} ms`,
        );
        if (head.status >= 200 && head.status < 300) {
          resolve({ ...head, stream: res });
          return;
        }
        readBody(res, req.url).then((body) => resolve({ ...head, body }), reject);
      });
      const timer = startTimer();
      request.end();
    }).catch((err: unknown) => {
      if (err instanceof TransportFailure) throw err.toNetworkError();
      throw err;
    });
  }

  /** Waits, unless Ctrl-C (or the caller's `signal`, rejecting with its reason) comes first. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const { interrupt } = this.#settings;
    await this.#settings.clock.sleep(ms, signal ? AbortSignal.any([interrupt, signal]) : interrupt);
    if (interrupt.aborted) throw interruption(interrupt);
    signal?.throwIfAborted();
  }

  /**
   * The per-attempt time limit: it ends the request, and a tunnel the proxy has not answered yet (named as the
   * proxy's silence, not the tenant's). `#start` cancels it when the request closes.
   */
  #timeLimit(
    request: http.ClientRequest,
    url: URL,
    route: Route,
    tunnel: AbortController | undefined,
    timeoutMs = this.#settings.timeoutMs,
  ) {
    const { clock } = this.#settings;
    return clock.setTimeout(() => {
      const { proxy } = route;
      const failure = proxy && !request.socket ? proxySilence(proxy, url, timeoutMs) : timeoutFailure(url, timeoutMs);
      tunnel?.abort(failure);
      request.destroy(failure);
    }, timeoutMs);
  }

  /** One attempt, made (its request built, its socket on the way) and not sent yet: `send` sends it. */
  #attempt(req: HttpRequest, route: Route): Attempt {
    const attempt = new Attempt(req.body);
    const fail = (err: unknown) => attempt.fail(err);
    const { request, startTimer } = this.#start(req, route, req.signal, fail, (res) => {
      // An answer to a request held and not sent yet (bytes the server sent after the answer before): not this
      // request's. It is ended unused, and the attempt made afresh when it is sent.
      if (!attempt.sent) {
        request.destroy();
        return;
      }
      if (req.statusOnly) {
        const answer = new StatusOnlyAnswer(res);
        drainBody(res, req.maxResponseBytes ?? MAX_ANSWER_BYTES, () => attempt.answered(answer));
        return;
      }
      readBody(res, req.url, req.maxResponseBytes).then(
        (body) =>
          attempt.answered({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body,
            retries: 0,
          }),
        (err: unknown) =>
          fail(err instanceof TransportFailure ? err : describeFailure(err as NodeJS.ErrnoException, req.url)),
      );
    });
    attempt.made(request, startTimer);
    return attempt;
  }

  #start(
    req: HttpRequest,
    route: Route,
    signal: AbortSignal | undefined,
    reject: (err: unknown) => void,
    onResponse: (res: IncomingMessage) => void,
  ): { request: http.ClientRequest; startTimer: () => Timer } {
    const isHttps = req.url.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': this.#settings.userAgent, ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const { interrupt } = this.#settings;
    const abort = signal ? AbortSignal.any([signal, interrupt]) : interrupt;
    // Node's own listener only for a signal of the caller's (or an interrupt already there): it ends the request alike.
    const sharedInterrupt = !signal && !interrupt.aborted;
    const { proxy } = route;
    // Ended by the time limit, or by whatever ends the request (Ctrl-C, the caller's signal).
    const tunnel = proxy ? new AbortController() : undefined;
    const tunnelStop = tunnel ? { [TUNNEL_STOP]: AbortSignal.any([tunnel.signal, abort]) } : {};
    let answered = false;
    const request = (isHttps ? httpsModule() : http).request(
      {
        ...this.#urlOptions(req.url),
        method: req.method,
        headers,
        agent: route.agent,
        ...(sharedInterrupt ? {} : { signal: abort }),
        ...tunnelStop,
      },
      (res) => {
        answered = true;
        req.onWire?.('answered');
        onResponse(res);
      },
    );
    const { onWire } = req;
    if (onWire) request.on('finish', () => onWire('sent'));
    // 101 Switching Protocols (to a request that asked for no upgrade): node:http hands over the socket and would
    // otherwise leave the request unsettled.
    request.on('upgrade', (res: IncomingMessage, socket: { destroy(): void }) => {
      answered = true;
      socket.destroy();
      reject(unusableAnswer(req.url, res));
    });
    if (sharedInterrupt) this.#endOnInterrupt(request);
    let timer: Timer | undefined;
    request.on('close', () => {
      timer?.cancel();
      if (sharedInterrupt) this.#notInterruptible(request);
      if (!answered && !this.#settings.interrupt.aborted) {
        reject(new TransportFailure(`${req.url.host} closed the connection without an answer`, 'NO_ANSWER'));
      }
    });
    if (proxy) {
      // https-proxy-agent hands a refused CONNECT's answer on as if the tenant gave it: taken here as the proxy's.
      request.on('proxyConnect', (connect: { statusCode?: number }) => {
        const status = connect.statusCode;
        if (status !== undefined && status !== 200) request.destroy(proxyRefusal(proxy, req.url, status));
      });
    }
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (this.#settings.interrupt.aborted) reject(interruption(this.#settings.interrupt));
      else if (err instanceof TransportFailure) reject(err);
      else if (err.name === 'AbortError') reject(err);
      else reject((proxy && describeProxyFailure(err, proxy, req.url)) || describeFailure(err, req.url));
    });
    // The time limit runs from when the attempt is sent (a request made ahead waits unsent without one).
    const startTimer = () => {
      timer = this.#timeLimit(request, req.url, route, tunnel, req.timeoutMs);
      return timer;
    };
    return { request, startTimer };
  }

  /**
   * The request options of a URL, as node:http makes them from it (`urlToHttpOptions`), kept for the last URL: a
   * forwarder posts every event to the same one (about 2 µs each).
   */
  #urlOptions(url: URL): http.RequestOptions {
    const { href } = url;
    if (href !== this.#lastUrl?.href) this.#lastUrl = { href, options: urlToHttpOptions(url) };
    return this.#lastUrl.options;
  }

  /** Ends `request` on Ctrl-C as node:http's `signal` option would (an AbortError), through the one shared listener. */
  #endOnInterrupt(request: http.ClientRequest): void {
    this.#interruptible.push(request);
    if (this.#interruptListened) return;
    this.#interruptListened = true;
    const { interrupt } = this.#settings;
    interrupt.addEventListener(
      'abort',
      () => {
        for (const inFlight of this.#interruptible.splice(0)) {
          inFlight.destroy(
            Object.assign(new Error('The operation was aborted'), { name: 'AbortError', cause: interrupt.reason }),
          );
        }
      },
      { once: true },
    );
  }

  /** A request that has closed: nothing for Ctrl-C to end. */
  #notInterruptible(request: http.ClientRequest): void {
    const list = this.#interruptible;
    const at = list.indexOf(request);
    if (at === -1) return;
    list[at] = list[list.length - 1] as http.ClientRequest;
    list.pop();
  }

  #traceExchange(req: HttpRequest, res: Omit<HttpResponse, 'retries'>, started: number, via: string): void {
    if (!this.#settings.trace) return;
    const body = req.traceBody ? ` (${req.traceBody})` : '';
    const limits = rateLimitSummary(res.headers);
    this.#trace(
      `${req.method} ${req.url.href}${body}${via} → ${res.status} ${res.statusText} in ${this.#settings.clock.now() - started} ms${limits ? `, ${limits}` : ''}`,
    );
  }

  #trace(line: string): void {
    this.#settings.trace?.(line);
  }
}

/** A request made ahead with `HttpClient.hold`: sent by the first attempt of the same request, or discarded. */
export interface HeldRequest {
  /** Ends it unsent (its connection closed if it had one). */
  discard(): void;
}

/** One attempt: its request made (its socket on the way), sent by `send`, and the answer it gives. */
class Attempt implements HeldRequest {
  readonly #answer: Promise<HttpResponse>;
  #answered!: (response: HttpResponse) => void;
  #failed!: (err: unknown) => void;
  #request: http.ClientRequest | undefined;
  #startTimer: (() => Timer) | undefined;
  #sent = false;
  #failedUnsent = false;

  get sent(): boolean {
    return this.#sent;
  }

  constructor(private readonly body: string | Uint8Array | undefined) {
    this.#answer = new Promise<HttpResponse>((resolve, reject) => {
      this.#answered = resolve;
      this.#failed = reject;
    });
    // A request held and never sent may fail (its connection closed) or be discarded: nobody waits for its answer.
    this.#answer.catch(() => {});
  }

  made(request: http.ClientRequest, startTimer: () => Timer): void {
    this.#request = request;
    this.#startTimer = startTimer;
  }

  answered(response: HttpResponse): void {
    this.#answered(response);
  }

  fail(err: unknown): void {
    if (!this.#sent) this.#failedUnsent = true;
    this.#failed(err);
  }

  /** Held, not sent, and not failed meanwhile. */
  get usable(): boolean {
    return !this.#sent && !this.#failedUnsent && this.#request?.destroyed === false;
  }

  /** Sends it with the attempt's own headers (a signature that carries the attempt's time) over the request's. */
  send(attemptHeaders: Record<string, string> | undefined): Promise<HttpResponse> {
    const request = this.#request as http.ClientRequest;
    this.#sent = true;
    if (attemptHeaders) for (const [name, value] of Object.entries(attemptHeaders)) request.setHeader(name, value);
    this.#startTimer?.();
    request.end(this.body);
    return this.#answer;
  }

  discard(): void {
    if (!this.#sent) this.#request?.destroy();
  }
}

/**
 * An answer taken for its status: Node builds the headers object when it is first read, so an app's 2xx is taken
 * without it. A class, not an object literal with a getter: each such literal gets a map of its own (its getter is a
 * new closure), which made about 4 KB per forwarded event outlive two minor collections.
 */
class StatusOnlyAnswer implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly body = '';
  retries = 0;
  readonly #res: IncomingMessage;

  constructor(res: IncomingMessage) {
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
  }

  get headers(): IncomingHttpHeaders {
    return this.#res.headers;
  }
}

/** An answer svcadm has no use for (101 Switching Protocols): a permanent failure, not retried. */
function unusableAnswer(url: URL, res: IncomingMessage): TransportFailure {
  const status = `${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim();
  return new TransportFailure(
    `${url.host} answered ${status}, an answer svcadm cannot use`,
    'UNUSABLE',
    undefined,
    true,
  );
}

function viaText(route: Route): string {
  return route.proxy ? ` via proxy ${route.proxy.display}` : '';
}

function timeoutFailure(url: URL, ms: number): TransportFailure {
  return new TransportFailure(`no answer from ${url.host} within ${ms / 1000}s`, 'TIMEOUT');
}

/** The service takes at most 1 MB (URL and body): a larger request is a usage error, before anything is sent. */
export function checkPayloadSize(req: Pick<HttpRequest, 'url' | 'body'>, limit = MAX_PAYLOAD_BYTES): void {
  const size = Buffer.byteLength(req.url.href) + Buffer.byteLength(req.body ?? '');
  if (size > limit) {
    throw new UsageError(`the request would be ${size} bytes; the service accepts at most 1 MB`);
  }
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}

/**
 * Reads and drops a body nobody needs, then calls `done`: at its end, so that the connection is free for the next
 * request, or as soon as it is longer than `limit`, closing the connection.
 */
function drainBody(res: IncomingMessage, limit: number, done: () => void): void {
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return;
    done();
    res.destroy();
  });
  res.on('end', done);
  res.on('close', done);
  res.on('error', () => {}); // the status is all that counts
}

function readBody(res: IncomingMessage, url: URL, limit = MAX_ANSWER_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () =>
      new TransportFailure(
        `the answer from ${url.host} is larger than ${sizeText(limit)}, the most svcadm reads`,
        'TOO_LARGE',
        undefined,
        true,
      );
    const announced = Number(res.headers['content-length']);
    if (announced > limit) {
      res.destroy();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        res.destroy(tooLarge());
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
