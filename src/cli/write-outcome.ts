import { CliError, Interrupted, NetworkError, STOP_WORDS } from '../errors.js';

/**
 * A write in flight, told by the HTTP layer when an attempt left for the service and when an answer's head came back
 * (`HttpRequest.onWire`). A failure while the last attempt is unanswered (a timeout, a cut connection, an answer
 * svcadm cannot use, a stop signal) leaves its outcome unknown, and `explain` says so with the correlation id to look
 * it up by. A failure after an answer (a body that is not JSON) or before sending is reported as it is.
 */
export class WriteInFlight {
  #unanswered = false;

  constructor(
    readonly method: string,
    readonly correlationId: string,
  ) {}

  readonly onWire = (state: 'sent' | 'answered'): void => {
    this.#unanswered = state === 'sent';
  };

  /** The error to report for `err`: the outcome-unknown one when the write was sent and no answer tells. */
  explain(err: unknown): unknown {
    if (!this.#unanswered || !(err instanceof CliError)) return err;
    const unknown = `the ${this.method} was sent; its outcome is unknown`;
    const details = { reason: 'outcome_unknown', subject: this.correlationId } as const;
    if (err instanceof Interrupted) {
      if (err.reported) return err;
      return new Interrupted(err.signal, false, `${STOP_WORDS[err.signal]}: ${unknown}`, details);
    }
    if (err instanceof NetworkError && err.status === undefined) {
      return new NetworkError(`${err.message}: ${unknown}`, { ...details, permanent: err.permanent });
    }
    return err;
  }
}
