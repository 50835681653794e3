import { timestampOf } from '../../api/timestamp.js';
import { errorCodeOf } from '../../error-codes.js';
import { type CliError, NetworkError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';

/** What a failed attempt's answer said of itself: its HTTP status and error code (none below HTTP). */
export interface FailedAnswer {
  readonly status?: number | undefined;
  readonly code?: string | undefined;
}

/** Why a tail that ended was not working: since when its stream has been down, and the last failure. */
export interface Outage {
  /** When the last open stream ended, or when the run started if none ever opened. */
  since: number;
  neverConnected: boolean;
  reason: string;
  /** The HTTP status of the last failure, when it was an answer (a 503, a 429). */
  status: number | undefined;
  /** Its error code: the service's, else `server_error` or `rate_limited` (`answerOf`); undefined below HTTP. */
  code: string | undefined;
}

/**
 * Whether the event stream of a tail was working, for its exit code: down when no stream ever opened, or when no
 * stream is open and at least one reconnect since the last one has failed too. The end of one connection alone (a
 * reconnect still to come) is not down; a rotation is never reported here at all
 * (docs/decisions/2026-11-23-tail-down-exit-7.md).
 */
export class StreamHealth {
  #open = false;
  #everOpen = false;
  #since: number;
  #failures = 0;
  #reason = 'no answer yet';
  #answer: FailedAnswer = {};

  constructor(startedAt: number) {
    this.#since = startedAt;
  }

  connected(): void {
    this.#open = true;
    this.#everOpen = true;
    this.#failures = 0;
  }

  /**
   * A connection ended or an attempt failed, at `now`. `answer`: the status and code of the answer that failed (the
   * `reconnecting` item carries them), undefined for a failure below HTTP.
   */
  failed(reason: string, now: number, answer?: FailedAnswer): void {
    if (this.#open) this.#since = now;
    this.#open = false;
    this.#failures++;
    this.#reason = reason;
    this.#answer = { status: answer?.status, code: answer?.code };
  }

  /** Whether a stream ever opened or a reconnect was ever needed: a first failure alone has nothing to resume. */
  get tried(): boolean {
    return this.#everOpen || this.#failures > 0;
  }

  /** The outage the tail ends in, or undefined when its stream was working. */
  outage(): Outage | undefined {
    if (this.#open || (this.#everOpen && this.#failures < 2)) return undefined;
    const { status, code } = this.#answer;
    return { since: this.#since, neverConnected: !this.#everOpen, reason: this.#reason, status, code };
  }
}

/**
 * A tail that ends with its stream down: exit 7 (`network`) whatever the last failure was, a 429 included, with the
 * status and code of the answer that kept it down (docs/decisions/2026-11-28-stream-down-carries-its-answer.md).
 */
export class StreamDownError extends NetworkError {
  override readonly status: number | undefined;
  override readonly code: string | undefined;

  constructor(message: string, answer: FailedAnswer) {
    super(message);
    this.status = answer.status;
    this.code = answer.code;
  }
}

/** The status and code of a failure that was an HTTP answer (`errorCodeOf`: the service's code, else svcadm's). */
export function answerOf(error: CliError): FailedAnswer {
  return error.status === undefined ? {} : { status: error.status, code: errorCodeOf(error) };
}

/**
 * The failure a subscription gives up on (`--max-reconnects`) as the tail ends with it: its stream is down, so a
 * 429 (rate limited, exit 6 elsewhere) is exit 7 too, with its status and code. Any other failure is as it was.
 */
export function givenUp(error: CliError): CliError {
  return error.kind === 'rate_limited' ? new StreamDownError(error.message, answerOf(error)) : error;
}

/** One line: since when the stream has been down, and the last failure. */
export function outageText(outage: Outage): string {
  const since = timestampOf(outage.since);
  const never = outage.neverConnected ? ', never connected' : '';
  return `the event stream has been down since ${since}${never}: ${neutralize(outage.reason)}`;
}

/** The error a tail (or a tenant of a merged tail) ends with when its stream is down: exit 7, the last answer's status and code. */
export function outageError(outage: Outage): NetworkError {
  return new StreamDownError(outageText(outage), outage);
}
