import type { Clock } from '../clock.js';
import { CliError, NetworkError } from '../errors.js';
import { chunkRuns } from './chunk-runs.js';
import type { Query } from './client.js';
import { CURSOR_RULE, isCursor } from './cursor.js';
import { apiErrorFrom } from './error-body.js';
import { eventLine } from './event-payload.js';
import { FATAL_STREAM_ERRORS } from './event-types.js';
import type { StreamResponse } from './http.js';
import { classify, reconnectDelayMs, serverRetryMs } from './retry.js';
import { SseLimitError, type SseMessage, SseParser } from './sse-parser.js';

/** What `GET /events` needs from the interface client (ApiClient provides it). */
export interface EventsApi {
  url(segments: readonly string[], query?: Query): URL;
  open(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<StreamResponse>;
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
  /** A stream silent for this long is taken for lost; default 2 minutes. */
  idleMs?: number;
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
}

/** One thing that happened on the subscription, in order. */
export type TailItem =
  | StreamEvent
  /** The position moved without an event to show (`offset-only`, a bare `id:`, an error's offset). */
  | { kind: 'cursor'; offset: string }
  | { kind: 'stream-error'; code: string; message: string; fatal: boolean }
  | { kind: 'warning'; message: string }
  | { kind: 'connected'; attempt: number }
  | { kind: 'reconnecting'; attempt: number; waitMs: number; reason: string };

/** Before the server has sent `retry:`. */
const DEFAULT_RETRY_MS = 1000;
const DEFAULT_IDLE_MS = 120_000;

/** A failure after which the subscription may try again. */
class Transient {
  constructor(
    readonly error: CliError,
    readonly askedMs?: number,
  ) {}
}

/** A time as the stream's `from_timestamp` takes it: `YYYY-MM-DDTHH:MM:SSZ`, the seconds rounded down. */
export function timestampOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

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
 */
export async function* subscribeEvents(opts: SubscribeOptions): AsyncGenerator<readonly TailItem[], void, undefined> {
  const { api, signal } = opts;
  const typeFilter = opts.types.length > 0 ? new Set(opts.types) : undefined;
  let cursor = opts.from;
  let fromTimestamp = opts.fromTimestamp;
  let retryMs = DEFAULT_RETRY_MS;
  let attempt = 0;
  let everConnected = false;
  let warnedOffset = false;

  while (!signal.aborted) {
    let failure: CliError | Transient;
    let progressed = false;
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
      const connectedAt = opts.clock.now();
      res = await api.open(api.url(['events'], query), headers, streamSignal);
      if (!res.stream) {
        const verdict = classify('stream', res, opts.clock.now());
        const err = streamAnswerError(res);
        failure = verdict.retry ? new Transient(err, verdict.askedMs) : err;
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
        const advance = (offset: string | undefined) => {
          if (offset === undefined || offset === cursor) return;
          cursor = offset;
          progressed = true;
        };
        const onMessage = (msg: SseMessage) => {
          const type = msg.event;
          if (type === 'offset-only' || !msg.hasData) {
            const offset = adopt(
              (msg.hasData ? stringField(parseJsonObject(msg.data), 'offset') : undefined) ?? (msg.id || undefined),
            );
            advance(offset);
            if (offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          if (type === 'error') {
            const body = parseJsonObject(msg.data);
            const detail =
              typeof body?.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : body;
            const code = clip(stringField(detail, 'code') ?? 'unknown');
            const message = clip(stringField(detail, 'message') ?? msg.data.toString('utf8'));
            const offset = adopt(stringField(detail, 'offset'));
            const isFatal = FATAL_STREAM_ERRORS.has(code);
            if (offset !== undefined && !isFatal) {
              advance(offset);
              batch.push({ kind: 'cursor', offset });
            }
            batch.push({ kind: 'stream-error', code, message, fatal: isFatal });
            if (isFatal) fatal = streamError(code, message);
            else endedByError = streamError(code, message);
            return;
          }
          // The id is the offset on this wire: no need to parse every payload just to learn it.
          const offset = adopt(msg.id || stringField(parseJsonObject(msg.data), 'offset'));
          advance(offset);
          if (typeFilter && !typeFilter.has(type)) {
            if (offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          const line = eventLine(type, msg.data);
          if (line === undefined) {
            batch.push({ kind: 'warning', message: `skipped a ${clip(type)} message whose data is not a JSON object` });
            if (offset !== undefined) batch.push({ kind: 'cursor', offset });
            return;
          }
          batch.push(new StreamEvent(type, offset, line));
        };
        const parser = new SseParser({
          message: onMessage,
          retry: (ms) => {
            retryMs = serverRetryMs(ms);
          },
        });
        const stream = res.stream;
        const idle = opts.clock.setTimeout(() => connection.abort(), opts.idleMs ?? DEFAULT_IDLE_MS);
        try {
          let overflow: SseLimitError | undefined;
          for await (const run of chunkRuns(stream)) {
            idle.refresh();
            try {
              for (const chunk of run) {
                parser.feed(chunk);
                if (fatal || endedByError) break;
              }
            } catch (err) {
              if (!(err instanceof SseLimitError)) throw err;
              overflow = err;
            }
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
            if (endedByError) break;
          }
          failure = new Transient(endedByError ?? new NetworkError('the service closed the event stream'));
        } catch (err) {
          if (err instanceof CliError && err === fatal) throw err;
          if (signal.aborted) return;
          failure = new Transient(
            connection.signal.aborted
              ? new NetworkError('the event stream went silent')
              : new NetworkError(`the event stream was cut: ${(err as Error).message}`),
          );
        } finally {
          idle.cancel();
          stream.destroy();
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      if (!(err instanceof NetworkError)) throw err;
      // A wrong domain or certificate is fatal at the start; once the stream has worked, the network may be changing.
      const failed = { code: 'NETWORK', message: err.message, permanent: err.permanent && !everConnected };
      if (!classify('stream', { failure: failed }, opts.clock.now()).retry) throw err;
      failure = new Transient(err);
    }
    if (failure instanceof CliError) throw failure;
    if (progressed) attempt = 0;
    attempt++;
    if (opts.maxReconnects !== undefined && attempt > opts.maxReconnects) throw failure.error;
    const waitMs = reconnectDelayMs(attempt, retryMs, opts.random, failure.askedMs);
    yield [{ kind: 'reconnecting', attempt, waitMs, reason: failure.error.message }];
    await opts.clock.sleep(waitMs, signal);
  }
}
