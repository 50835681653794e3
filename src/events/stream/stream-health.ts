/** Why a tail that ended was not working: since when its stream has been down, and the last failure. */
export interface Outage {
  /** When the last open stream ended, or when the run started if none ever opened. */
  since: number;
  neverConnected: boolean;
  reason: string;
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

  constructor(startedAt: number) {
    this.#since = startedAt;
  }

  connected(): void {
    this.#open = true;
    this.#everOpen = true;
    this.#failures = 0;
  }

  /** A connection ended or an attempt failed, at `now`. */
  failed(reason: string, now: number): void {
    if (this.#open) this.#since = now;
    this.#open = false;
    this.#failures++;
    this.#reason = reason;
  }

  /** Whether a stream ever opened or a reconnect was ever needed: a first failure alone has nothing to resume. */
  get tried(): boolean {
    return this.#everOpen || this.#failures > 0;
  }

  /** The outage the tail ends in, or undefined when its stream was working. */
  outage(): Outage | undefined {
    if (this.#open || (this.#everOpen && this.#failures < 2)) return undefined;
    return { since: this.#since, neverConnected: !this.#everOpen, reason: this.#reason };
  }
}
