import type { HeldRequest, HttpClient, HttpRequest } from '../../api/http.js';
import { retryAfterMs } from '../../api/retry.js';
import type { Clock } from '../../clock.js';
import { secretFlagWarning } from '../../config/secret-flag.js';
import { errorCodeOf } from '../../error-codes.js';
import { Interrupted, NetworkError, UsageError } from '../../errors.js';
import type { Printer } from '../../io/printer.js';
import { neutralize } from '../../text/sanitize.js';
import { LF } from '../stream/byte-codes.js';
import { SSE_MAX_EVENT_BYTES } from '../stream/sse-parser.js';
import type { StreamEvent } from '../stream/stream-event.js';
import { backoffMs, classOfStatus, type DeliveryClass } from './delivery-class.js';
import { derivedKeyNotice, type EventKey, eventKey } from './idempotency-key.js';
import type { Forwarding } from './options.js';
import { type Signer, signatureHeaders, signerOf } from './signature.js';
import { FORWARD_SECRET_ENV, type ForwardTarget } from './target.js';

export type ForwardedEvent = StreamEvent;

/**
 * Says where events go before the run starts; a secret made for this run is shown even with --quiet. A secret given
 * as `--forward-secret` is warned about as `--client-secret` is.
 */
export function announceForwarding(out: Printer, target: ForwardTarget, warn: (text: string) => void): void {
  if (target.fromFlag) warn(secretFlagWarning('--forward-secret', FORWARD_SECRET_ENV));
  const where = target.url.href;
  if (!target.generated) {
    out.aside({ forward_to: where }, `Forwarding events to ${where}`);
    return;
  }
  out.aside(
    { forward_to: where, signing_secret: target.secret },
    `Forwarding events to ${where} — signing secret ${target.secret} (set ${FORWARD_SECRET_ENV} to keep one)`,
    true,
  );
}

/** Where notices go: the run's line sink (stderr, or above the live view). */
export type Notice = (text: string, always?: boolean) => void;

/** An event about to be tried again, for the status line. */
export interface RetryState {
  /** The attempt that comes next (2-based). */
  attempt: number;
  /** When it starts (clock time). */
  at: number;
  reason: string;
}

/** How one event's delivery ended. */
export type ForwardResult =
  | { outcome: 'acknowledged'; status: number; attempts: number }
  | {
      /** `rejected`: the app refused it (not retried); `exhausted`: every attempt failed. */
      outcome: 'rejected' | 'exhausted';
      /** The app's last status; undefined when no answer came (or it was never sent). */
      status: number | undefined;
      attempts: number;
      /** Why, in a few words: the status and its class, or the failure. */
      error: string;
    };

/** An app's answer counts for its status only: its body is drained up to this, beyond it the connection is closed. */
const MAX_ACKNOWLEDGEMENT_BYTES = 64 * 1024;
/** Header values the service's text may fill: visible ASCII only, else the header is left out. */
const HEADER_VALUE = /^[\x21-\x7e]{1,1024}$/;
/**
 * The most svcadm POSTs to the app: the stream's own bound on an event (docs/decisions/2026-11-25-forward-size.md).
 * A larger event (from a recorded file) is set aside as over the app's limit, never sent.
 */
export const MAX_FORWARD_BYTES = SSE_MAX_EVENT_BYTES;

/** An event's request, made ready before it is sent. */
interface Prepared {
  readonly event: ForwardedEvent;
  /** The event's line without its line break: what is sent and signed. */
  readonly body: Buffer;
  readonly bytes: number;
  readonly name: EventName;
  /** Its `Idempotency-Key` (`eventKey`). */
  readonly key: EventKey;
  readonly headers: Record<string, string>;
  /** The first attempt's signature headers, and the second (Unix time) they were made for. */
  readonly signedAt: number | undefined;
  readonly signature: Record<string, string> | undefined;
  /** Its first attempt's request, made while the event before it was with the app (`HttpClient.hold`). */
  held?: HeldRequest | undefined;
}

/** What a message names of an event: its id, type and offset. */
export interface EventName {
  id: string | undefined;
  type: string;
  offset: string | undefined;
}

export function eventName(event: ForwardedEvent, text?: string): EventName {
  return { id: event.envelopeId(text), type: event.type, offset: event.offset };
}

/** `event evt_1 (user.created, offset 42)`, neutralised and cut for one line. */
export function eventText(name: EventName): string {
  const id = name.id === undefined || name.id === '' ? 'without an id' : neutralize(name.id).slice(0, 64);
  const offset = name.offset === undefined ? '' : `, offset ${neutralize(name.offset).slice(0, 64)}`;
  return `event ${id} (${neutralize(name.type).slice(0, 64)}${offset})`;
}

/**
 * An event's NDJSON line, already checked to be one valid JSON object, without its line break: what is forwarded,
 * signed and dead-lettered. A copy: the line may point into memory the source uses again once its batch is settled.
 */
export function payloadOf(event: ForwardedEvent): Buffer {
  const line = Buffer.concat(event.line);
  return line.at(-1) === LF ? line.subarray(0, -1) : line;
}

/**
 * Delivers events to the app of --forward-to, one at a time: a POST of the payload (the JSON the NDJSON output
 * prints) with its key as `Idempotency-Key` (`eventKey`: its id, or a SHA-256), its type, offset and attempt in
 * headers, each attempt signed afresh.
 * Each answer is taken by its class (`delivery-class.ts`); retries wait with full jitter on the injected clock, up to
 * --forward-attempts, each attempt bounded by --forward-timeout.
 */
export class EventForwarder {
  /** The URL without its query, for messages. */
  readonly where: string;

  constructor(
    private readonly http: HttpClient,
    private readonly forwarding: Forwarding,
    private readonly clock: Clock,
    private readonly notice: Notice,
    private readonly onRetry?: (state: RetryState | undefined) => void,
  ) {
    this.where = neutralize(`${forwarding.target.url.origin}${forwarding.target.url.pathname}`);
    this.#signer = signerOf(forwarding.target.secret);
  }

  /** The `traceparent` of the event being delivered (traces on): its span's. */
  #traceparent: string | undefined;

  /** The run's secret and its Standard Webhooks key, decoded once. */
  readonly #signer: Signer;

  /** The next event, made ready while the one before it is with the app. */
  #prepared: Prepared | undefined;

  /**
   * Makes an event's request ready (its body, id, headers and first signature) ahead of its delivery: called while
   * the event before it is with the app, so that this work runs while svcadm would otherwise wait. Nothing is sent.
   */
  prepare(event: ForwardedEvent): void {
    if (this.#prepared?.event === event) return;
    this.#dropPrepared();
    const ready = this.#prepare(event);
    // Held only behind a first attempt still unanswered: a retry must not wait behind it.
    if (this.#firstAttempt && ready.bytes <= MAX_FORWARD_BYTES) ready.held = this.http.hold(this.#request(ready, 1));
    this.#prepared = ready;
  }

  /** The event with the app is on its first attempt, not answered yet otherwise than with an acknowledgement. */
  #firstAttempt = false;

  /** A key was derived (not the id as it is) already in this run: the notice that says so is given once. */
  #keyDerived = false;

  /** Ends what was made ahead (the run is over). */
  close(): void {
    this.#dropPrepared();
  }

  /**
   * The event with the app was not acknowledged at its first attempt: nothing is held behind a retry, and the next
   * event's held request, which shares the one connection, goes before anything else is sent.
   */
  #notAcknowledgedAtOnce(): void {
    this.#firstAttempt = false;
    this.#dropPrepared();
  }

  /** The event made ready ahead is not sent next: its held request would hold the one connection to the app. */
  #dropPrepared(): void {
    this.#prepared?.held?.discard();
    this.#prepared = undefined;
  }

  /** An attempt's request; the first may be sent as it was held. */
  #request(ready: Prepared, attempt: number, attemptHeaders?: () => Record<string, string>): HttpRequest {
    const { target, timeoutMs } = this.forwarding;
    return {
      method: 'POST',
      url: target.url,
      headers: ready.headers,
      body: ready.body,
      retry: 'forward',
      maxRetries: 0,
      timeoutMs,
      maxRequestBytes: ready.bytes + Buffer.byteLength(target.url.href),
      attemptHeaders,
      maxResponseBytes: MAX_ACKNOWLEDGEMENT_BYTES,
      statusOnly: true,
      direct: true,
      sequential: true,
      // Traces on: the event's span (`deliver`) names every attempt; these POSTs alone carry `traceparent`.
      traceparent: this.#traceparent,
      held: attempt === 1 ? ready.held : undefined,
    };
  }

  #prepare(event: ForwardedEvent): Prepared {
    const body = payloadOf(event);
    const name = eventName(event, body.toString('utf8'));
    const bytes = body.length;
    const key = eventKey(name.id, body);
    // Standard Webhooks' `webhook-id` is the event's key, by the one rule of `eventKey`.
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'idempotency-key': key.value,
      'webhook-id': key.value,
    };
    if (HEADER_VALUE.test(event.type)) headers['svcadm-event-type'] = event.type;
    if (event.offset !== undefined && HEADER_VALUE.test(event.offset)) headers['svcadm-offset'] = event.offset;
    if (bytes > MAX_FORWARD_BYTES)
      return { event, body, bytes, name, key, headers, signedAt: undefined, signature: undefined };
    const signedAt = Math.floor(this.clock.now() / 1000);
    const signature = signatureHeaders(this.#signer, key.value, body, signedAt);
    return { event, body, bytes, name, key, headers, signedAt, signature };
  }

  /**
   * Resolves with how the event's delivery ended: acknowledged, rejected or out of attempts. Throws when forwarding
   * cannot go on for any event (an app that cannot be reached for good: TLS, a name that does not resolve).
   */
  async deliver(event: ForwardedEvent): Promise<ForwardResult> {
    const tracer = this.http.settings.tracer;
    if (!tracer?.on) return this.#deliver(event);
    // Traces on: the event's delivery is a span, named by each of its POSTs in `traceparent`. Not made the active
    // span: nothing below it makes spans, and entering a context per event is a cost a forwarding run pays per event.
    const span = tracer.startSpan('svcadm forward');
    this.#traceparent = span.traceparent();
    try {
      const result = await this.#deliver(event);
      const attributes: Record<string, string | number> = {
        'svcadm.forward.outcome': result.outcome,
        'svcadm.forward.class': result.outcome === 'exhausted' ? 'retried' : result.outcome,
        'svcadm.forward.attempts': result.attempts,
      };
      if (result.status !== undefined) attributes['http.response.status_code'] = result.status;
      span.setAttributes(attributes);
      if (result.outcome !== 'acknowledged')
        span.failed(result.outcome === 'rejected' ? 'forward_rejected' : 'forward_failed');
      return result;
    } catch (err) {
      span.failed(errorCodeOf(err));
      throw err;
    } finally {
      this.#traceparent = undefined;
      span.end();
    }
  }

  async #deliver(event: ForwardedEvent): Promise<ForwardResult> {
    const { forwarding, clock, http } = this;
    const { attempts: limit } = forwarding;
    const trace = http.settings.trace;
    const ahead = this.#prepared?.event === event ? this.#prepared : undefined;
    if (!ahead) this.#dropPrepared();
    const ready = ahead ?? this.#prepare(event);
    this.#prepared = undefined;
    this.#firstAttempt = true;
    const { body, bytes, name } = ready;
    // Named only for a message or the trace: most events are acknowledged at once, and say nothing.
    let named: string | undefined;
    const what = () => (named ??= eventText(name));
    if (bytes > MAX_FORWARD_BYTES) {
      const error = `larger than ${MAX_FORWARD_BYTES / 1024 / 1024} MB, the app's limit: never sent`;
      trace?.(`forward: ${what()}: rejected, ${error}`);
      return { outcome: 'rejected', status: undefined, attempts: 0, error };
    }
    if (ready.key.from !== 'id' && !this.#keyDerived) {
      this.#keyDerived = true;
      this.notice(derivedKeyNotice(what(), ready.key));
    }
    // Each attempt is signed at its own second; one prepared ahead is used only when made in that same second.
    const sign = (attempt: number): Record<string, string> => {
      const seconds = Math.floor(clock.now() / 1000);
      if (attempt === 1 && ready.signedAt === seconds && ready.signature !== undefined) return ready.signature;
      return signatureHeaders(this.#signer, ready.key.value, body, seconds);
    };
    const of = limit === 0 ? '' : ` of ${limit}`;
    for (let attempt = 1; ; attempt++) {
      let status: number | undefined;
      let reason: string;
      let asked: number | undefined;
      let klass: DeliveryClass;
      try {
        const res = await http.request(
          this.#request(ready, attempt, () => ({
            'svcadm-attempt': String(attempt),
            ...sign(attempt),
          })),
        );
        status = res.status;
        klass = classOfStatus(status);
        reason =
          klass === 'acknowledged' && !trace ? '' : neutralize(`${res.status} ${res.statusText}`.trim()).slice(0, 200);
        asked = klass === 'retried' ? retryAfterMs(res.headers, clock.now()) : undefined;
      } catch (err) {
        this.#notAcknowledgedAtOnce();
        if (err instanceof Interrupted || !(err instanceof NetworkError || err instanceof UsageError)) throw err;
        reason = neutralize(err.message).slice(0, 200);
        if (err instanceof UsageError || err.permanent) {
          trace?.(`forward: ${what()} attempt ${attempt}${of}: ${reason}: cannot be retried`);
          throw new NetworkError(`cannot deliver ${what()} to ${this.where}: ${reason}`, { reason: 'forward_failed' });
        }
        klass = 'retried';
      }
      if (klass !== 'acknowledged') this.#notAcknowledgedAtOnce();
      if (klass === 'acknowledged') {
        trace?.(`forward: ${what()} attempt ${attempt}${of} → ${reason}: acknowledged`);
        if (attempt > 1) this.onRetry?.(undefined);
        return { outcome: 'acknowledged', status: status as number, attempts: attempt };
      }
      if (klass === 'rejected') {
        trace?.(`forward: ${what()} attempt ${attempt}${of} → ${reason}: rejected, not retried`);
        if (attempt > 1) this.onRetry?.(undefined);
        const limitText = status === 413 ? " (over the app's limit)" : '';
        return { outcome: 'rejected', status, attempts: attempt, error: `rejected: ${reason}${limitText}` };
      }
      if (limit !== 0 && attempt >= limit) {
        trace?.(`forward: ${what()} attempt ${attempt}${of} → ${reason}: retried, no attempts left`);
        if (attempt > 1) this.onRetry?.(undefined);
        return {
          outcome: 'exhausted',
          status,
          attempts: attempt,
          error: `${attempt} ${attempt === 1 ? 'attempt' : 'attempts'} failed: ${reason}`,
        };
      }
      const waitMs = backoffMs(attempt + 1, http.settings.random, asked);
      trace?.(`forward: ${what()} attempt ${attempt}${of} → ${reason}: retried in ${waitMs} ms`);
      this.notice(
        `svcadm: ${what()} not acknowledged by ${this.where} (${reason}); retrying in ${(waitMs / 1000).toFixed(1)}s (attempt ${attempt + 1}${of})`,
      );
      this.onRetry?.({ attempt: attempt + 1, at: clock.now() + waitMs, reason });
      await http.sleep(waitMs);
    }
  }
}
