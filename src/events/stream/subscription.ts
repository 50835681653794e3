import type { Query } from '../../api/client.js';
import { apiErrorFrom } from '../../api/error-body.js';
import { header } from '../../api/headers.js';
import type { StreamResponse } from '../../api/http.js';
import { classify, reconnectDelayMs, serverRetryMs } from '../../api/retry.js';
import { timestampOf } from '../../api/timestamp.js';
import type { Clock } from '../../clock.js';
import { CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import { isFatalStreamError } from '../../domain/stream-errors.js';
import { CliError, NetworkError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import { fingerprintInto } from '../../util/fingerprint.js';
import { chunkRuns, SLOW_READER_RUN_BYTES } from './chunk-runs.js';
import { scanEnvelopeId, UNSURE } from './envelope-id.js';
import { eventLine } from './event-payload.js';
import { createSseFramer, REUSED_AFTER } from './sse-fast-path.js';
import { SseLimitError, type SseMessage } from './sse-parser.js';

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
  /** Empty: every type. */
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
}

/** An event to show. */
export class StreamEvent {
  readonly kind = 'event';

  constructor(
    readonly type: string,
    /** Its offset, when it came with one svcadm can adopt. */
    readonly offset: string | undefined,
    /** Its payload as one NDJSON line, in pieces (`eventLine`): valid, compact, terminal-safe, `type` first. */
    readonly line: readonly Buffer[],
  ) {}

  /** The payload, parsed on demand (NDJSON output never needs it). */
  payload(): Record<string, unknown> {
    return JSON.parse(Buffer.concat(this.line).toString('utf8')) as Record<string, unknown>;
  }

  /**
   * The id of the envelope the payload holds (`event.id`, a string), or undefined. `text`: the line as text, when
   * the caller has it already. A source that parsed the payload anyway knows it without parsing again.
   */
  envelopeId(text = Buffer.concat(this.line).toString('utf8')): string | undefined {
    const scanned = scanEnvelopeId(text);
    return scanned === UNSURE ? envelopeIdOf(JSON.parse(text) as Record<string, unknown>) : scanned;
  }
}

/** `payload.event.id` when it is a string. */
export function envelopeIdOf(payload: Record<string, unknown>): string | undefined {
  const envelope = payload.event;
  const inner = typeof envelope === 'object' && envelope !== null ? (envelope as { id?: unknown }) : undefined;
  return typeof inner?.id === 'string' ? inner.id : undefined;
}

/** One thing that happened on the subscription, in order. */
export type TailItem =
  | StreamEvent
  /** The position moved without an event to show (`offset-only`, a bare `id:`, an error's offset). */
  | { kind: 'cursor'; offset: string }
  | { kind: 'stream-error'; code: string; message: string; fatal: boolean }
  | { kind: 'warning'; message: string }
  | { kind: 'connected'; attempt: number }
  /** A connection ended or an attempt failed (never a rotation): the stream is down until the next `connected`. */
  | { kind: 'reconnecting'; attempt: number; waitMs: number; reason: string };

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
/** How many recent event ids (SSE `id:`, the offset) are remembered to drop a replay. */
const RECENT_IDS = 10_000;
/** The service's stream rotation (api-notes): followed at once and silently, never a failure. */
const ROTATION = 'connection_timeout';

/** A failure after which the subscription may try again. */
class Transient {
  constructor(
    readonly error: CliError,
    readonly askedMs?: number,
  ) {}
}

/** Slots of RecentIds' table: a power of two, under half full with RECENT_IDS ids. */
const FINGERPRINT = new Uint32Array(2);
const ID_TABLE_SLOTS = 32_768;

/**
 * The last `RECENT_IDS` ids seen, oldest forgotten first. An open-addressing table of 32-bit hashes (`fingerprintInto`) over a ring of the
 * ids (a hash that matches is confirmed on the id itself): a `Set` with deletions cost about 1 µs an event here, a
 * tenth of the tail's time per event (docs/decisions/2026-11-24-replay-memory-hash-table.md).
 */
export class RecentIds {
  /** Ring slot + 1 of the id whose hash lands here (0: empty). */
  readonly #table = new Int32Array(ID_TABLE_SLOTS);
  readonly #ids: string[] = [];
  /** The low 32 bits of each id's fingerprint. */
  readonly #hashes = new Uint32Array(RECENT_IDS);
  #next = 0;

  /** Remembers `id`; false when it was already remembered (one lookup for both questions). */
  add(id: string): boolean {
    fingerprintInto(id, FINGERPRINT);
    const hash = FINGERPRINT[1] as number;
    const table = this.#table;
    const mask = ID_TABLE_SLOTS - 1;
    let at = hash & mask;
    for (let entry = table[at] as number; entry !== 0; entry = table[at] as number) {
      if (this.#hashes[entry - 1] === hash && this.#ids[entry - 1] === id) return false;
      at = (at + 1) & mask;
    }
    const slot = this.#next;
    if (this.#ids.length > slot) {
      this.#forget(slot);
      // Forgetting may have moved entries back: look for a free slot again.
      at = hash & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      this.#ids[slot] = id;
    } else this.#ids.push(id);
    this.#hashes[slot] = hash;
    table[at] = slot + 1;
    this.#next = (slot + 1) % RECENT_IDS;
    return true;
  }

  /** Takes the id in ring `slot` out of the table, moving later entries of its run back (no tombstones). */
  #forget(slot: number): void {
    const table = this.#table;
    const mask = ID_TABLE_SLOTS - 1;
    let hole = (this.#hashes[slot] as number) & mask;
    while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let at = (hole + 1) & mask; table[at] !== 0; at = (at + 1) & mask) {
      const entry = table[at] as number;
      const home = (this.#hashes[entry - 1] as number) & mask;
      // The entry may fill the hole unless its home lies after the hole, up to where it sits.
      if (((at - home) & mask) >= ((at - hole) & mask)) {
        table[hole] = entry;
        hole = at;
      }
    }
    table[hole] = 0;
  }
}

/** Whether an answer's `Content-Type` is an event stream (parameters such as `charset` allowed). */
function isEventStream(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

export { REUSED_AFTER, SLOW_READER_RUN_BYTES, timestampOf };

function parseJsonObject(data: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(data.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Service text shown in a message: a hostile stream could send megabytes of it. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function stringField(record: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
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

/** An `event: error` message: fatal for a cursor the service refuses, else a reason to reconnect. */
function streamError(code: string, message: string): CliError {
  if (code === 'cursor_expired') {
    return new CliError('rejected', `the cursor has expired: ${message}`, { code, reason: 'cursor_expired' });
  }
  if (code === 'invalid_cursor') {
    return new CliError('rejected', `the service rejected the cursor: ${message}`, { code, reason: 'invalid_cursor' });
  }
  return new NetworkError(`stream error ${code}: ${message}`);
}

/**
 * The `GET /events` subscription: yields what each received chunk carried, reconnecting as cli.md asks and resuming
 * after the last position seen (`from` and `Last-Event-ID`). Returns when `signal` aborts; throws fatal failures.
 *
 * What counts as progress (resetting the backoff and `--max-reconnects`): a new event, or a connection that stayed
 * open for HEALTHY_CONNECTION_MS. Heartbeat offsets and replayed events are not progress, so a server that closes
 * every connection at once with `retry: 0` and a fresh heartbeat offset meets a growing backoff.
 */
export async function* subscribeEvents(opts: SubscribeOptions): AsyncGenerator<readonly TailItem[], void, undefined> {
  const { api, signal, clock } = opts;
  const typeFilter = opts.types.length > 0 ? new Set(opts.types) : undefined;
  let cursor = opts.from;
  let fromTimestamp = opts.fromTimestamp;
  let retryMs = DEFAULT_RETRY_MS;
  let attempt = 0;
  /** Rotations in a row without an event: a server that rotates every connection at once is paced too. */
  let rotations = 0;
  let everConnected = false;
  let warnedOffset = false;
  let warnedReplay = false;
  let lastRefresh = Number.NEGATIVE_INFINITY;
  const recent = new RecentIds();
  if (cursor !== undefined) recent.add(cursor);
  const mayRefresh = () => {
    const now = clock.now();
    if (now - lastRefresh < TOKEN_REFRESH_INTERVAL_MS) return false;
    lastRefresh = now;
    return true;
  };

  while (!signal.aborted) {
    let failure: CliError | Transient;
    let progressed = false;
    let rotated = false;
    const query: Query = {
      from: cursor,
      from_timestamp: cursor === undefined ? fromTimestamp : undefined,
      event_type: opts.types.length > 0 ? opts.types : undefined,
    };
    const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (cursor !== undefined) headers['last-event-id'] = cursor;
    const connection = new AbortController();
    const streamSignal = AbortSignal.any([signal, connection.signal]);
    let res: StreamResponse | undefined;
    try {
      const connectedAt = clock.now();
      res = await api.open(api.url(['events'], query), headers, streamSignal, mayRefresh);
      if (!res.stream) {
        const err = streamAnswerError(res);
        if (res.status === 401) {
          // A new token was fetched less than a minute ago: wait for the next one rather than mint one per attempt.
          failure = new Transient(err, lastRefresh + TOKEN_REFRESH_INTERVAL_MS - clock.now());
        } else {
          const verdict = classify('stream', res, clock.now());
          failure = verdict.retry ? new Transient(err, verdict.askedMs) : err;
        }
      } else if (!isEventStream(header(res.headers, 'content-type'))) {
        // A proxy's login page or a misrouted request: trying again would only send the token again.
        res.stream.destroy();
        const type = clip(neutralize(header(res.headers, 'content-type') ?? 'none'));
        failure = new NetworkError(`the event stream answered ${res.status} with ${type}, not text/event-stream`, {
          hint: 'a proxy or a login page may stand between svcadm and the tenant: check --domain and the proxy settings',
        });
      } else {
        // Until a cursor arrives, a reconnect must not jump to "latest" and skip what happened meanwhile.
        fromTimestamp ??= timestampOf(connectedAt);
        everConnected = true;
        yield [{ kind: 'connected', attempt }];
        let batch: TailItem[] = [];
        let fatal: CliError | undefined;
        let endedByError: CliError | undefined;
        /** The offset if it is a cursor svcadm can adopt (saved, resumed from, printed), else undefined. */
        const adopt = (offset: string | undefined): string | undefined => {
          if (offset === undefined || isCursor(offset)) return offset;
          if (!warnedOffset) {
            warnedOffset = true;
            batch.push({ kind: 'warning', message: `ignored an event offset that is not ${CURSOR_RULE}` });
          }
          return undefined;
        };
        /** Moves the cursor, never back to a position already passed (a server that replays). */
        const advance = (offset: string | undefined): boolean => {
          if (offset === undefined || offset === cursor || !recent.add(offset)) return false;
          cursor = offset;
          return true;
        };
        /** A message arrived in the current run: the idle timer starts again after it (once a run, not per message). */
        let alive = false;
        const onMessage = (msg: SseMessage) => {
          alive = true;
          const type = msg.event;
          if (type === 'offset-only' || !msg.hasData) {
            const offset = adopt(
              (msg.hasData ? stringField(parseJsonObject(msg.data), 'offset') : undefined) ?? (msg.id || undefined),
            );
            if (advance(offset) && offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          if (type === 'error') {
            const body = parseJsonObject(msg.data);
            const detail =
              typeof body?.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : body;
            const code = clip(stringField(detail, 'code') ?? 'unknown');
            const message = clip(stringField(detail, 'message') ?? msg.data.toString('utf8'));
            const offset = adopt(stringField(detail, 'offset'));
            const isFatal = isFatalStreamError(code);
            if (!isFatal && advance(offset) && offset !== undefined) batch.push({ kind: 'cursor', offset });
            if (code === ROTATION) {
              rotated = true;
              return;
            }
            batch.push({ kind: 'stream-error', code, message, fatal: isFatal });
            if (isFatal) fatal = streamError(code, message);
            else endedByError = streamError(code, message);
            return;
          }
          // The id is the offset on this wire: no need to parse every payload just to learn it.
          const offset = adopt(msg.id || stringField(parseJsonObject(msg.data), 'offset'));
          if (offset !== undefined && !advance(offset)) {
            // Sent again (a server that ignores `from`): printed once, and no progress.
            if (!warnedReplay) {
              warnedReplay = true;
              batch.push({
                kind: 'warning',
                message: 'the service sent events again that were already seen; dropping repeats',
              });
            }
            return;
          }
          progressed = true;
          rotations = 0;
          if (typeFilter && !typeFilter.has(type)) {
            if (offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          const line = msg.line ?? eventLine(type, msg.data);
          if (line === undefined) {
            batch.push({ kind: 'warning', message: `skipped a ${clip(type)} message whose data is not a JSON object` });
            if (offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          batch.push(new StreamEvent(type, offset, line));
        };
        const framer = createSseFramer(
          {
            message: onMessage,
            retry: (ms) => {
              alive = true;
              retryMs = serverRetryMs(ms);
            },
          },
          () => fatal !== undefined || endedByError !== undefined || rotated,
          { reuseLines: opts.reuseLines, chunksReused: opts.reuseChunks },
        );
        const stream = res.stream;
        const idle = clock.setTimeout(() => connection.abort(), opts.idleMs ?? DEFAULT_IDLE_MS);
        try {
          let overflow: SseLimitError | undefined;
          for await (const run of chunkRuns(stream, opts.runMaxBytes, opts.reuseChunks)) {
            if (opts.received) {
              let bytes = 0;
              for (const chunk of run) bytes += chunk.length;
              opts.received(bytes);
            }
            try {
              framer.feed(run);
            } catch (err) {
              if (!(err instanceof SseLimitError)) throw err;
              overflow = err;
            }
            if (alive) idle.refresh();
            alive = false;
            if (batch.length > 0) {
              const out = batch;
              batch = [];
              if (progressed) attempt = 0;
              yield out;
            }
            if (fatal) throw fatal;
            if (overflow) {
              endedByError = new NetworkError(`dropped the event stream: ${overflow.message}`);
              break;
            }
            if (endedByError || rotated) break;
          }
          failure = new Transient(endedByError ?? new NetworkError('the service closed the event stream'));
        } catch (err) {
          if (err instanceof CliError && err === fatal) throw err;
          if (signal.aborted) return;
          failure = new Transient(
            connection.signal.aborted
              ? new NetworkError('the event stream sent nothing but comments, or nothing at all, for too long')
              : new NetworkError(`the event stream was cut: ${(err as Error).message}`),
          );
        } finally {
          idle.cancel();
          stream.destroy();
        }
        if (clock.now() - connectedAt >= HEALTHY_CONNECTION_MS) progressed = true;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (!(err instanceof NetworkError)) throw err;
      // A wrong domain or certificate is fatal at the start; once the stream has worked, the network may be changing.
      const failed = { code: 'NETWORK', message: err.message, permanent: err.permanent && !everConnected };
      if (!classify('stream', { failure: failed }, clock.now()).retry) throw err;
      failure = new Transient(err);
    }
    if (failure instanceof CliError) throw failure;
    if (progressed) attempt = 0;
    if (rotated) {
      // A rotation (api-notes): resume at once from its offset, silently, not counted against --max-reconnects;
      // only a server that rotates again and again without an event is made to wait.
      rotations++;
      if (rotations > 1) await clock.sleep(reconnectDelayMs(rotations - 1, retryMs, opts.random), signal);
      continue;
    }
    attempt++;
    if (opts.maxReconnects !== undefined && attempt > opts.maxReconnects) throw failure.error;
    const waitMs = reconnectDelayMs(attempt, retryMs, opts.random, failure.askedMs);
    yield [{ kind: 'reconnecting', attempt, waitMs, reason: failure.error.message }];
    await clock.sleep(waitMs, signal);
  }
}
