import type { IncomingMessage } from 'node:http';
import type { Query } from '../../api/client.js';
import { apiErrorFrom } from '../../api/error-body.js';
import { header } from '../../api/headers.js';
import type { StreamResponse } from '../../api/http.js';
import { classify, reconnectDelayMs, serverRetryMs } from '../../api/retry.js';
import { timestampOf } from '../../api/timestamp.js';
import type { Clock } from '../../clock.js';
import { errorCodeOf } from '../../error-codes.js';
import { CliError, NetworkError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import { NO_SPAN, type Span, type Tracer } from '../../traces/tracer.js';
import { chunkRuns, SLOW_READER_RUN_BYTES } from './chunk-runs.js';
import { createSseFramer, REUSED_AFTER } from './sse-fast-path.js';
import { SseLimitError } from './sse-parser.js';
import type { TailItem } from './stream-event.js';
import { answerOf, givenUp } from './stream-health.js';
import { clip, StreamInterpreter } from './stream-messages.js';

export { RecentIds } from './recent-ids.js';
export { envelopeIdOf, StreamEvent, type TailItem } from './stream-event.js';
export { REUSED_AFTER, SLOW_READER_RUN_BYTES, timestampOf };

/** What `GET /events` needs from the interface client (ApiClient provides it). */
export interface EventsApi {
  url(segments: readonly string[], query?: Query): URL;
  /**
   * Opens the stream. On a 401 it fetches a new token and tries once more only when `mayRefresh()` says so;
   * otherwise the 401 comes back as an answer.
   */
  open(
    url: URL,
    headers: Record<string, string>,
    signal?: AbortSignal,
    mayRefresh?: () => boolean,
  ): Promise<StreamResponse>;
}

export interface SubscribeOptions {
  api: EventsApi;
  /**
   * The types the service is asked for (`event_type`; empty: every type). It narrows what is sent; what is shown is
   * the filter stage's (events/pipeline/filters.ts), which the caller applies.
   */
  types: readonly string[];
  /** Resume after this cursor. */
  from?: string | undefined;
  /** `YYYY-MM-DDTHH:MM:SSZ`; only used while no cursor is known. */
  fromTimestamp?: string | undefined;
  /** Consecutive reconnects without progress before giving up; undefined = unlimited. */
  maxReconnects?: number | undefined;
  /** Ends the subscription quietly (Ctrl-C, --duration). */
  signal: AbortSignal;
  clock: Clock;
  random(): number;
  /** A stream without a message (an event, a heartbeat, `retry:`) for this long is taken for dead; default 2 minutes. */
  idleMs?: number;
  /**
   * The events' lines may be overwritten (no copy) once REUSED_AFTER more batches have been asked for: for a caller
   * that has written each batch by then and keeps nothing of it (`events tail`). Others get lines of their own.
   */
  reuseLines?: boolean;
  /**
   * The bytes received are copied into memory used again, run after run (chunk-runs.ts's `reuseMemory`): for a
   * caller that may be slow to ask for the next batch (forwarding), whose waiting chunks would otherwise be promoted.
   */
  reuseChunks?: boolean;
  /**
   * What may wait for this subscription's reader before its socket stops being read (chunk-runs.ts); less for each
   * tenant of a merged tail, whose sockets wait in turn for the one reader.
   */
  runMaxBytes?: number;
  /** Told the size of each run of bytes received. */
  received?(bytes: number): void;
  /** Traces on: the subscription is a span, its connects, reconnects and rotations events of it. */
  tracer?: Tracer | undefined;
}

/** Before the server has sent `retry:`. */
const DEFAULT_RETRY_MS = 1000;
/**
 * Comments do not count: a stream that only sends comments for this long is dead
 * (docs/decisions/2026-11-23-idle-bound-counts-messages.md).
 */
const DEFAULT_IDLE_MS = 120_000;
/** A connection open this long was working, even without an event: its end starts the backoff afresh. */
const HEALTHY_CONNECTION_MS = 30_000;
/** At most one new token per this interval for 401s on the stream: token issuance is metered. */
const TOKEN_REFRESH_INTERVAL_MS = 60_000;

/** A failure after which the subscription may try again. */
class Transient {
  constructor(
    readonly error: CliError,
    readonly askedMs?: number,
  ) {}
}

/**
 * The `GET /events` subscription: yields what each received chunk carried, reconnecting as cli.md asks and resuming
 * after the last position seen (`from` and `Last-Event-ID`). Returns when `signal` aborts; throws fatal failures.
 *
 * What counts as progress (resetting the backoff and `--max-reconnects`): a new event, or a connection that stayed
 * open for HEALTHY_CONNECTION_MS. Heartbeat offsets and replayed events are not progress, so a server that closes
 * every connection at once with `retry: 0` and a fresh heartbeat offset meets a growing backoff.
 */
export function subscribeEvents(opts: SubscribeOptions): AsyncGenerator<readonly TailItem[], void, undefined> {
  return new Subscription(opts).run();
}

/**
 * The reconnect loop: opens the stream, tells its answer's failures apart (tried again or not), reads each
 * connection's runs of bytes through the framer into the interpreter of its messages (stream-messages.ts), and waits
 * before the next attempt (backoff, the server's `retry:`, a rotation followed at once).
 */
class Subscription {
  readonly #opts: SubscribeOptions;
  readonly #messages: StreamInterpreter;
  #fromTimestamp: string | undefined;
  #retryMs = DEFAULT_RETRY_MS;
  /** Reconnects in a row without progress. */
  #attempt = 0;
  /** Rotations in a row without an event: a server that rotates every connection at once is paced too. */
  #rotations = 0;
  #everConnected = false;
  #lastRefresh = Number.NEGATIVE_INFINITY;

  constructor(opts: SubscribeOptions) {
    this.#opts = opts;
    this.#messages = new StreamInterpreter(opts.from);
    this.#fromTimestamp = opts.fromTimestamp;
  }

  async *run(): AsyncGenerator<readonly TailItem[], void, undefined> {
    const tracer = this.#opts.tracer;
    if (!tracer?.on) {
      yield* this.#run();
      return;
    }
    this.#span = tracer.startSpan('svcadm event stream');
    try {
      yield* this.#run();
    } catch (err) {
      this.#span.failed(errorCodeOf(err));
      throw err;
    } finally {
      this.#span.end();
    }
  }

  /** The subscription's span (traces on), else one that records nothing. */
  #span: Span = NO_SPAN;

  async *#run(): AsyncGenerator<readonly TailItem[], void, undefined> {
    const { signal, clock } = this.#opts;
    const messages = this.#messages;
    while (!signal.aborted) {
      messages.startConnection();
      let failure: CliError | Transient | undefined;
      let healthy = false;
      const connection = new AbortController();
      try {
        const connectedAt = clock.now();
        const res = await this.#open(AbortSignal.any([signal, connection.signal]));
        if (res instanceof CliError || res instanceof Transient) failure = res;
        else {
          // Until a cursor arrives, a reconnect must not jump to "latest" and skip what happened meanwhile.
          this.#fromTimestamp ??= timestampOf(connectedAt);
          this.#everConnected = true;
          this.#span.addEvent('connect', { 'svcadm.reconnect.attempt': this.#attempt });
          yield [{ kind: 'connected', attempt: this.#attempt }];
          failure = yield* this.#read(res, connection);
          if (failure === undefined) return;
          healthy = clock.now() - connectedAt >= HEALTHY_CONNECTION_MS;
        }
      } catch (err) {
        if (signal.aborted) return;
        failure = this.#networkFailure(err);
      }
      if (failure instanceof CliError) throw failure;
      if (messages.sawEvent) this.#rotations = 0;
      if (messages.sawEvent || healthy) this.#attempt = 0;
      yield* this.#pause(failure);
    }
  }

  /** Opens the stream: the body of an event stream, or the failure its answer is (tried again, or not). */
  async #open(signal: AbortSignal): Promise<IncomingMessage | Transient | CliError> {
    const { api, clock, types } = this.#opts;
    const cursor = this.#messages.cursor;
    const query: Query = {
      from: cursor,
      from_timestamp: cursor === undefined ? this.#fromTimestamp : undefined,
      event_type: types.length > 0 ? types : undefined,
    };
    const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (cursor !== undefined) headers['last-event-id'] = cursor;
    const res = await api.open(api.url(['events'], query), headers, signal, this.#mayRefresh);
    if (!res.stream) {
      const err = streamAnswerError(res);
      // A new token was fetched less than a minute ago: wait for the next one rather than mint one per attempt.
      if (res.status === 401) return new Transient(err, this.#lastRefresh + TOKEN_REFRESH_INTERVAL_MS - clock.now());
      const verdict = classify('stream', res, clock.now());
      return verdict.retry ? new Transient(err, verdict.askedMs) : err;
    }
    if (!isEventStream(header(res.headers, 'content-type'))) {
      // A proxy's login page or a misrouted request: trying again would only send the token again.
      res.stream.destroy();
      const type = clip(neutralize(header(res.headers, 'content-type') ?? 'none'));
      return new NetworkError(`the event stream answered ${res.status} with ${type}, not text/event-stream`, {
        hint: 'a proxy or a login page may stand between svcadm and the tenant: check --domain and the proxy settings',
      });
    }
    return res.stream;
  }

  /** Whether a 401 on the stream may fetch a new token now: at most one per TOKEN_REFRESH_INTERVAL_MS. */
  readonly #mayRefresh = (): boolean => {
    const now = this.#opts.clock.now();
    if (now - this.#lastRefresh < TOKEN_REFRESH_INTERVAL_MS) return false;
    this.#lastRefresh = now;
    return true;
  };

  /**
   * Reads one connection until it ends, yielding what each run of bytes carried: how it ended (undefined when the
   * subscription was stopped); a fatal stream error is thrown.
   */
  async *#read(
    stream: IncomingMessage,
    connection: AbortController,
  ): AsyncGenerator<readonly TailItem[], Transient | undefined, undefined> {
    const opts = this.#opts;
    const messages = this.#messages;
    /** A message arrived in the current run: the idle timer starts again after it (once a run, not per message). */
    let alive = false;
    const framer = createSseFramer(
      {
        message: (msg) => {
          alive = true;
          messages.message(msg);
        },
        retry: (ms) => {
          alive = true;
          this.#retryMs = serverRetryMs(ms);
        },
      },
      () => messages.ended,
      { reuseLines: opts.reuseLines, chunksReused: opts.reuseChunks },
    );
    const idle = opts.clock.setTimeout(() => connection.abort(), opts.idleMs ?? DEFAULT_IDLE_MS);
    try {
      let overflow: SseLimitError | undefined;
      for await (const run of chunkRuns(stream, opts.runMaxBytes, opts.reuseChunks)) {
        if (opts.received) opts.received(bytesOf(run));
        try {
          framer.feed(run);
        } catch (err) {
          if (!(err instanceof SseLimitError)) throw err;
          overflow = err;
        }
        if (alive) idle.refresh();
        alive = false;
        if (messages.pending) {
          if (messages.sawEvent) this.#attempt = 0;
          yield messages.take();
        }
        if (messages.fatal) throw messages.fatal;
        if (overflow) return new Transient(new NetworkError(`dropped the event stream: ${overflow.message}`));
        if (messages.ended) break;
      }
      return new Transient(messages.endedBy ?? new NetworkError('the service closed the event stream'));
    } catch (err) {
      if (err instanceof CliError && err === messages.fatal) throw err;
      if (opts.signal.aborted) return undefined;
      return new Transient(
        connection.signal.aborted
          ? new NetworkError('the event stream sent nothing but comments, or nothing at all, for too long')
          : new NetworkError(`the event stream was cut: ${(err as Error).message}`),
      );
    } finally {
      idle.cancel();
      stream.destroy();
    }
  }

  /** A failure thrown while connecting: tried again unless it is permanent (and the stream never worked). */
  #networkFailure(err: unknown): Transient {
    if (!(err instanceof NetworkError)) throw err;
    // A wrong domain or certificate is fatal at the start; once the stream has worked, the network may be changing.
    const failed = { code: 'NETWORK', message: err.message, permanent: err.permanent && !this.#everConnected };
    if (!classify('stream', { failure: failed }, this.#opts.clock.now()).retry) throw err;
    return new Transient(err);
  }

  /**
   * Before the next attempt: a rotation is followed at once; any other end is a reconnect after a backoff, told
   * first, unless --max-reconnects is spent (the failure is thrown, as the stream being down: `givenUp`).
   */
  async *#pause(failure: Transient): AsyncGenerator<readonly TailItem[], void, undefined> {
    const { signal, clock, random, maxReconnects } = this.#opts;
    if (this.#messages.rotated) {
      // A rotation (api-notes): resume at once from its offset, silently, not counted against --max-reconnects;
      // only a server that rotates again and again without an event is made to wait.
      this.#rotations++;
      this.#span.addEvent('rotation');
      if (this.#rotations > 1) await clock.sleep(reconnectDelayMs(this.#rotations - 1, this.#retryMs, random), signal);
      return;
    }
    this.#attempt++;
    if (maxReconnects !== undefined && this.#attempt > maxReconnects) throw givenUp(failure.error);
    const waitMs = reconnectDelayMs(this.#attempt, this.#retryMs, random, failure.askedMs);
    const { error } = failure;
    this.#span.addEvent('reconnect', {
      'svcadm.reconnect.attempt': this.#attempt,
      'svcadm.reconnect.wait_ms': waitMs,
      'error.type': errorCodeOf(error),
    });
    yield [{ kind: 'reconnecting', attempt: this.#attempt, waitMs, reason: error.message, ...answerOf(error) }];
    await clock.sleep(waitMs, signal);
  }
}

/** The bytes of a run of chunks. */
function bytesOf(run: readonly Buffer[]): number {
  let bytes = 0;
  for (const chunk of run) bytes += chunk.length;
  return bytes;
}

/** Whether an answer's `Content-Type` is an event stream (parameters such as `charset` allowed). */
function isEventStream(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** What the stream's error answers mean, in the service's words (the CLI adds what to do: `cli/hints.ts`). */
function streamAnswerError(res: StreamResponse) {
  const answer = { status: res.status, statusText: res.statusText, headers: res.headers, body: res.body ?? '' };
  return apiErrorFrom(answer, 'event stream', ({ status, code, text }) => {
    if (status === 403 && (code === 'too_many_streams' || /concurrent (event )?stream/i.test(text))) {
      return {
        message: `too many event streams are open at once for this tenant: ${text}`,
        reason: 'too_many_streams',
      };
    }
    if (status === 404) {
      return { message: `this tenant has no event stream: ${text}`, reason: 'events_unavailable' };
    }
    if (status === 410) return { message: `the cursor has expired: ${text}`, reason: 'cursor_expired' };
    if (status === 400 && code === 'invalid_cursor') {
      return { message: `the service rejected the request: ${text}`, reason: 'invalid_cursor' };
    }
    return undefined;
  });
}
