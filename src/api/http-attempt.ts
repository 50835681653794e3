import http, { type IncomingMessage } from 'node:http';
import type https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { Clock, Timer } from '../clock.js';
import { interruption } from '../errors.js';
import { drainBody, type HttpResponse, MAX_ANSWER_BYTES, readBody, StatusOnlyAnswer } from './http-answer.js';
import type { ChosenProxy } from './proxy.js';
import { TUNNEL_STOP } from './proxy-tunnel.js';
import {
  closedWithoutAnswer,
  describeFailure,
  describeProxyFailure,
  proxyRefusal,
  proxySilence,
  TransportFailure,
  timeoutFailure,
  unusableAnswer,
} from './transport-failure.js';

/** What one attempt takes of a request; the client's `HttpRequest` adds its retries, its route and holding. */
export interface AttemptRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  /** A string is sent as UTF-8; bytes as they are. */
  body?: string | Uint8Array;
  /** Told when an attempt has been sent, and when an answer's head came back (a write whose outcome may be unknown). */
  onWire?: (state: 'sent' | 'answered') => void;
  /** A larger answer is a failure; default MAX_ANSWER_BYTES. */
  maxResponseBytes?: number;
  /**
   * Only the status counts (an app acknowledging an event): the answer is taken when its head arrives; the body is
   * drained and dropped, and one longer than `maxResponseBytes` closes the connection.
   */
  statusOnly?: boolean;
  /** Over the settings' --timeout: a caller with a limit of its own (the forwarder's). */
  timeoutMs?: number;
  /**
   * The caller's own stop besides Ctrl-C (`--duration`): it ends the attempt, the tunnel and the waits between
   * retries, and the request rejects with its reason.
   */
  signal?: AbortSignal;
}

/** What making attempts takes of the client's settings (`HttpSettings`). */
export interface AttemptSettings {
  timeoutMs: number;
  clock: Clock;
  interrupt: AbortSignal;
  userAgent: string;
}

/** How one request leaves: the agent, and the proxy it goes through if any. */
export interface Route {
  agent: http.Agent;
  proxy?: ChosenProxy;
}

/**
 * node:https, loaded on first use: a run that sends nothing, or only plain http, does without it (2.6 ms CPU of
 * `policies get -o json` against the bench's plain-http emulator; docs/decisions/2026-11-25-start-up-tricks.md).
 */
export function httpsModule(): typeof https {
  return process.getBuiltinModule('node:https');
}

/** A client's attempts on node:http: each request built on its route, its time limit, and Ctrl-C that ends it. */
export class AttemptMaker {
  readonly #settings: AttemptSettings;
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

  constructor(settings: AttemptSettings) {
    this.#settings = settings;
  }

  /** One attempt, made (its request built, its socket on the way) and not sent yet: `send` sends it. */
  attempt(req: AttemptRequest, route: Route): Attempt {
    const attempt = new Attempt(req.body);
    const fail = (err: unknown) => attempt.fail(err);
    const { request, startTimer } = this.start(req, route, req.signal, fail, (res) => {
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

  /**
   * Builds a request on `route`: every way it can end is handed to `reject` as a `TransportFailure` (or Ctrl-C's
   * interruption, or the caller's abort), its answer's head to `onResponse`. Nothing is sent until the caller ends
   * the request; `startTimer` starts its time limit.
   */
  start(
    req: AttemptRequest,
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
      if (!answered && !this.#settings.interrupt.aborted) reject(closedWithoutAnswer(req.url));
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
   * The per-attempt time limit: it ends the request, and a tunnel the proxy has not answered yet (named as the
   * proxy's silence, not the tenant's). `start` cancels it when the request closes.
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
}

/**
 * One attempt: its request made (its socket on the way), sent by `send`, and the answer it gives. Held unsent, it is
 * the client's `HeldRequest`.
 */
export class Attempt {
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
