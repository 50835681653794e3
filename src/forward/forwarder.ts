import type { StreamEvent } from '../api/events.js';
import type { HttpClient } from '../api/http.js';
import type { Clock } from '../clock.js';
import { NetworkError, UsageError } from '../errors.js';
import type { Printer } from '../io/printer.js';
import { neutralize } from '../text/sanitize.js';
import type { Settlement } from './pipeline.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { FORWARD_SECRET_ENV, type ForwardTarget } from './target.js';

export type ForwardedEvent = StreamEvent;

/** Says where events go before the tail starts; a secret made for this run is shown even with --quiet. */
export function announceForwarding(out: Printer, target: ForwardTarget): void {
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

/** Where notices go: the tail's line sink (stderr, or above the live view). */
export type Notice = (text: string, always?: boolean) => void;

/** An app's answer counts for its status only: its body is drained up to this, beyond it the connection is closed. */
const MAX_ACKNOWLEDGEMENT_BYTES = 64 * 1024;
/** Header values the service's text may fill: visible ASCII only, else the header is left out. */
const HEADER_VALUE = /^[\x21-\x7e]{1,1024}$/;

/**
 * Delivers events to the app of `events tail --forward-to`, one at a time: a POST of the payload (the JSON the NDJSON
 * output prints) with its type, offset and signature in headers. Anything but a 2xx is tried again with the one
 * retry rule (policy `forward`, bounded by --max-retries, waits on the injected clock), each attempt signed afresh.
 */
export class EventForwarder {
  /** The URL without its query, for messages. */
  readonly #where: string;

  constructor(
    private readonly http: HttpClient,
    private readonly target: ForwardTarget,
    private readonly clock: Clock,
    private readonly notice: Notice,
  ) {
    this.#where = neutralize(`${target.url.origin}${target.url.pathname}`);
  }

  /** Resolves once the app acknowledged the event with a 2xx; throws a `forward_failed` error when it never did. */
  async deliver(event: ForwardedEvent): Promise<Settlement> {
    const { target, clock } = this;
    // The event's NDJSON line, already checked to be one valid JSON object: the body, without its line break.
    const body = Buffer.concat(event.line).toString('utf8').replace(/\n$/, '');
    const envelope = event.payload().event;
    const inner = typeof envelope === 'object' && envelope !== null ? (envelope as { id?: unknown }) : undefined;
    const id = typeof inner?.id === 'string' ? neutralize(inner.id).slice(0, 64) : 'without an id';
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (HEADER_VALUE.test(event.type)) headers['svcadm-event-type'] = event.type;
    if (event.offset !== undefined && HEADER_VALUE.test(event.offset)) headers['svcadm-offset'] = event.offset;
    let res: Awaited<ReturnType<HttpClient['request']>>;
    try {
      res = await this.http.request({
        method: 'POST',
        url: target.url,
        headers,
        body,
        retry: 'forward',
        attemptHeaders: () => ({
          [SIGNATURE_HEADER]: signatureHeader(target.secret, body, Math.floor(clock.now() / 1000)),
        }),
        onRetry: ({ retry, maxRetries, waitMs, reason }) =>
          this.notice(
            `svcadm: event ${id} not acknowledged by ${this.#where} (${neutralize(reason).slice(0, 200)}); retrying in ${(waitMs / 1000).toFixed(1)}s (retry ${retry} of ${maxRetries})`,
          ),
        maxResponseBytes: MAX_ACKNOWLEDGEMENT_BYTES,
        statusOnly: true,
        direct: true,
      });
    } catch (err) {
      if (err instanceof UsageError) {
        throw new NetworkError(`cannot forward event ${id} to ${this.#where}: ${err.message}`, {
          reason: 'forward_failed',
        });
      }
      if (!(err instanceof NetworkError)) throw err;
      throw new NetworkError(`cannot deliver event ${id} to ${this.#where}: ${err.message}`, {
        reason: 'forward_failed',
      });
    }
    if (res.status >= 200 && res.status < 300) {
      return { outcome: 'acknowledged', status: res.status, attempts: res.retries + 1 };
    }
    const tried = res.retries > 0 ? ` (after ${res.retries} ${res.retries === 1 ? 'retry' : 'retries'})` : '';
    const status = neutralize(`${res.status} ${res.statusText}`.trim()).slice(0, 200);
    throw new NetworkError(`${this.#where} did not acknowledge event ${id}: it answered ${status}${tried}`, {
      reason: 'forward_failed',
    });
  }
}
