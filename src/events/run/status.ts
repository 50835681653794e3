import type { Clock, Timer } from '../../clock.js';
import type { ItemStream } from '../../io/stream-types.js';
import { type ForwardStatus, startingStatus, type TailStatus } from '../../render/tail-view.js';

/** The rate on the status line counts the events of this last while. */
const RATE_WINDOW_MS = 5000;
/** The live view's counters are brought up to date this often, events or not (the rate falls when none come). */
const TICK_MS = 1000;

/**
 * The status of a run, for the live view's status line (and accessible mode's lines): its state, events seen and
 * their recent rate, the position, the forwarding counts. One for every source.
 */
export class RunStatus {
  readonly #status: TailStatus;
  readonly #clock: Clock;
  readonly #samples: Array<[number, number]>;
  #stream: ItemStream<never, TailStatus> | undefined;
  #ticker: Timer | undefined;

  constructor(
    state: 'connecting' | 'connected',
    types: readonly string[],
    position: string | undefined,
    clock: Clock,
    forward?: ForwardStatus,
  ) {
    const now = clock.now();
    this.#clock = clock;
    this.#status = startingStatus(state, types, position, now, forward);
    this.#samples = [[now, 0]];
  }

  /** The status as it is now. */
  get now(): TailStatus {
    return { ...this.#status, now: this.#clock.now() };
  }

  /** Shows the status on `stream` from now on, when it shows one, and keeps its rate current. */
  show(stream: ItemStream<never, TailStatus>): void {
    if (!stream.live) return;
    this.#stream = stream;
    this.#ticker = this.#clock.setInterval(() => this.refresh(), TICK_MS);
  }

  /** Every stream is open. */
  connected(): void {
    Object.assign(this.#status, { state: 'connected', attempt: 0, reconnectAt: undefined, reason: undefined });
  }

  /** A stream is down: its next attempt, when, and why. */
  reconnecting(attempt: number, waitMs: number, reason: string): void {
    const now = this.#clock.now();
    Object.assign(this.#status, { state: 'reconnecting', attempt, reconnectAt: now + waitMs, reason, now });
  }

  /** Events seen, the position reached and the forwarding counts, shown at once. */
  progress(seen: number, position: string | undefined, forward?: ForwardStatus): void {
    this.#status.seen = seen;
    this.#status.cursor = position;
    if (forward) this.#status.forward = forward;
    this.#stream?.status(this.now);
  }

  /** The forwarding counts changed (a retry, its end). */
  forwarding(forward: ForwardStatus): void {
    this.#status.forward = forward;
    this.#stream?.status(this.now);
  }

  /** The rate brought up to date, and the status shown. */
  refresh(): void {
    const now = this.#clock.now();
    const samples = this.#samples;
    samples.push([now, this.#status.seen]);
    while (samples.length > 2 && (samples[0]?.[0] ?? now) < now - RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    this.#status.rate = now > t0 ? ((this.#status.seen - n0) * 1000) / (now - t0) : 0;
    this.#stream?.status(this.now);
  }

  /** The run is over: the last status, `reason` saying why it stopped. */
  final(reason: string | undefined, seen: number, position: string | undefined): TailStatus {
    this.#ticker?.cancel();
    return { ...this.now, state: 'stopped', reason, seen, cursor: position };
  }
}
