import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type https from 'node:https';
import { interruption, UsageError } from '../errors.js';
import { NO_SPAN, type Span, type Tracer } from '../traces/tracer.js';
import { rateLimitSummary } from './headers.js';
import { type HttpResponse, readBody } from './http-answer.js';
import {
  Attempt,
  AttemptMaker,
  type AttemptRequest,
  type AttemptSettings,
  httpsModule,
  type Route,
} from './http-attempt.js';
import { type ProxyEnv, proxyFor } from './proxy.js';
import { proxyAgent } from './proxy-tunnel.js';
import { announcesWait, capsWaits, classify, type RetryPolicy, retryWaitMs } from './retry.js';
import { routeTemplate } from './route-template.js';
import { TransportFailure } from './transport-failure.js';

export type { RetryPolicy } from './retry.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A request to `HttpClient`: what one attempt takes (`AttemptRequest`), and how it is retried, routed and held. */
export interface HttpRequest extends AttemptRequest {
  method: HttpMethod;
  retry: RetryPolicy;
  /** What --debug shows of the body; bodies are never traced as they are (they may hold secrets). */
  traceBody?: string;
  /** Headers made afresh for each attempt, over `headers` (a signature that carries the attempt's time). */
  attemptHeaders?: () => Record<string, string>;
  /** Told before each wait for a retry, in place of the client's `onRetry`: a command that shows its own attempts. */
  onRetry?: (notice: RetryNotice) => void;
  /** Never through a proxy: the app `events tail --forward-to` names is local. */
  direct?: boolean;
  /**
   * One request at a time to this origin, in order (the forwarder's): they share an agent of one socket, so that a
   * request made ahead (`hold`) is handed the socket as soon as the one before it frees it.
   */
  sequential?: boolean;
  /** The first attempt's request, made ahead by `hold` from this same request: sent when it is still usable. */
  held?: HeldRequest;
  /** Over the settings' --max-retries: a caller with a limit of its own (the forwarder's). */
  maxRetries?: number;
  /** Over the service's 1 MB: a request to someone else (the app of --forward-to) with a limit of its own. */
  maxRequestBytes?: number;
  /** Traces: each attempt's span carries `url.template`, by default `routeTemplate` of the URL. */
  template?: string;
  /**
   * Traces on: the caller's span stands for the request (a forwarded event's), each attempt carries its
   * `traceparent` so that the receiver continues the trace, and the attempts are not spans of their own (one span
   * per event keeps a forwarding run's tracing cost small). Only the POSTs to the user's own app set it (api-notes.md
   * "Tracing": never a request to the tenant).
   */
  traceparent?: string | undefined;
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

/** The client's settings: those of its attempts (`AttemptSettings`: time limit, clock, Ctrl-C, user agent), and these. */
export interface HttpSettings extends AttemptSettings {
  maxRetries: number;
  onRetry?: (notice: RetryNotice) => void;
  random(): number;
  trace?: (line: string) => void;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (api/proxy.ts); without it every request goes directly. */
  proxyEnv?: ProxyEnv;
  /** Where each attempt's span goes (traces on), else nothing is recorded. */
  tracer?: Tracer;
}

export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * The one HTTP layer: how a request leaves (keep-alive agents, one socket for `sequential` requests, a proxy's
 * tunnels), retries, requests held ahead, the --debug trace. Each attempt is made by `AttemptMaker` (http-attempt.ts).
 */
export class HttpClient {
  readonly #settings: HttpSettings;
  readonly #httpAgent = new http.Agent({ keepAlive: true });
  readonly #httpRoute: Route = { agent: this.#httpAgent };
  /** The agents of `sequential` requests (one socket each), made on first use. */
  readonly #sequentialRoutes: { http?: Route; https?: Route } = {};
  // node:https (and TLS under it) is loaded the first time an https URL is asked for: a loopback tenant never needs it.
  #httpsAgent: https.Agent | undefined;
  readonly #proxyAgents = new Map<string, Promise<http.Agent>>();
  readonly #attempts: AttemptMaker;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#attempts = new AttemptMaker(settings);
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
    return this.#attempts.attempt(req, this.#sequentialRoute(req.url.protocol === 'https:'));
  }

  /** Sends a request, retrying as its policy allows; resolves with the last answer whatever its status. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    checkPayloadSize(req, req.maxRequestBytes);
    const { clock } = this.#settings;
    const maxRetries = req.maxRetries ?? this.#settings.maxRetries;
    const chosen = this.#route(req);
    const route = chosen instanceof Promise ? await chosen : chosen;
    const via = viaText(route);
    const tracer = this.#settings.tracer;
    for (let attempt = 0; ; attempt++) {
      req.signal?.throwIfAborted();
      const started = clock.now();
      let response: HttpResponse | undefined;
      let failure: TransportFailure | undefined;
      const span = tracer?.on && req.traceparent === undefined ? this.#attemptSpan(tracer, req, attempt) : NO_SPAN;
      try {
        const held = attempt === 0 && req.held instanceof Attempt && req.held.usable ? req.held : undefined;
        const headers = req.attemptHeaders?.();
        const { traceparent } = req;
        response = await (held ?? this.#attempts.attempt(req, route)).send(
          traceparent === undefined ? headers : { ...headers, traceparent },
        );
        response.retries = attempt;
        span.setAttributes({ 'http.response.status_code': response.status });
        if (response.status >= 400) span.failed(String(response.status));
        this.#traceExchange(req, response, started, via);
        // The last attempt, under a policy that never refuses a wait as too long: the answer is all there is to it.
        if (attempt >= maxRetries && capsWaits(req.retry)) {
          span.end();
          return response;
        }
      } catch (err) {
        span.failed(err instanceof TransportFailure ? err.code : 'internal_error');
        if (!(err instanceof TransportFailure)) {
          span.end();
          throw err;
        }
        failure = err;
        this.#trace(`${req.method} ${req.url.href}${via} failed after ${clock.now() - started} ms: ${err.message}`);
      }
      const verdict = classify(req.retry, response ?? { failure: failure as TransportFailure }, clock.now());
      if (!verdict.retry || attempt >= maxRetries) {
        span.end();
        if (response && verdict.tooLong && verdict.askedMs !== undefined) {
          response.waitRefused = { waitMs: verdict.askedMs, until: clock.now() + verdict.askedMs };
          return response;
        }
        if (response) return response;
        const tried = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? 'retry' : 'retries'})` : '';
        throw (failure as TransportFailure).toNetworkError(`${failure?.message}${tried}`);
      }
      const wait = retryWaitMs(attempt, verdict, this.#settings.random);
      // The wait before the retry, on the attempt that is retried.
      span.setAttributes({ 'svcadm.retry.wait_ms': wait });
      span.end();
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
      const { request, startTimer } = this.#attempts.start(req, route, signal, reject, (res) => {
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

  /** One attempt's span: `<method> <url.template>`, its method, route template and how often it was sent before. */
  #attemptSpan(tracer: Tracer, req: HttpRequest, attempt: number): Span {
    const template = req.template ?? routeTemplate(req.url);
    const attributes: Record<string, string | number> = { 'http.request.method': req.method, 'url.template': template };
    if (attempt > 0) attributes['http.request.resend_count'] = attempt;
    return tracer.startSpan(`${req.method} ${template}`, attributes);
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

function viaText(route: Route): string {
  return route.proxy ? ` via proxy ${route.proxy.display}` : '';
}

/** The service takes at most 1 MB (URL and body): a larger request is a usage error, before anything is sent. */
export function checkPayloadSize(req: Pick<HttpRequest, 'url' | 'body'>, limit = MAX_PAYLOAD_BYTES): void {
  const size = Buffer.byteLength(req.url.href) + Buffer.byteLength(req.body ?? '');
  if (size > limit) {
    throw new UsageError(`the request would be ${size} bytes; the service accepts at most 1 MB`);
  }
}
