import { setMaxListeners } from 'node:events';
import type { Clock, Timer } from '../../clock.js';
import { interruption, STOP_WORDS } from '../../errors.js';

/**
 * What stops an events run, whatever its source: Ctrl-C, SIGTERM and SIGHUP (the interrupt), `--duration`, a write to
 * stdout that failed after it was handed over (thrown where it is awaited), `q` in the interactive view (as
 * --max-events does), and `--fail-fast` across tenants. A sink that cannot go on (the app gave up, a file that
 * cannot be written) stops the run by throwing instead.
 */
export class RunStops {
  /** Aborted when `--duration` has passed. */
  readonly duration = new AbortController();
  readonly writeFailed = new AbortController();
  /** Aborted when a tenant failed under `--fail-fast`. */
  readonly failFast = new AbortController();
  /** Any of the stops: what the pipeline and every subscription listen to. */
  readonly signal: AbortSignal;
  readonly #interrupt: AbortSignal;
  readonly #quit: AbortSignal | undefined;
  readonly #timer: Timer | undefined;

  constructor(interrupt: AbortSignal, clock: Clock, durationMs: number | undefined, quit: AbortSignal | undefined) {
    this.#interrupt = interrupt;
    this.#quit = quit;
    this.#timer = durationMs === undefined ? undefined : clock.setTimeout(() => this.duration.abort(), durationMs);
    this.signal = AbortSignal.any([
      interrupt,
      this.duration.signal,
      this.writeFailed.signal,
      this.failFast.signal,
      ...(quit ? [quit] : []),
    ]);
    // Every tenant's requests listen to the stop (each removes its listener when done): many tenants at once are no
    // leak, and Node's warning about more than 10 listeners would be noise on stderr.
    setMaxListeners(0, interrupt, this.signal);
  }

  /** A pipeline's failed write stops the run too. */
  follow(writeFailed: AbortSignal): void {
    writeFailed.addEventListener('abort', () => this.writeFailed.abort(), { once: true });
  }

  /** Stopped by a signal. */
  get interrupted(): boolean {
    return this.#interrupt.aborted;
  }

  /** Stopped by `q`, and by nothing before it. */
  get quit(): boolean {
    return this.#quit?.aborted === true && !this.#interrupt.aborted && !this.failFast.signal.aborted;
  }

  /** The words of the signal that stopped the run (`interrupted`, `terminated`, `hung up`). */
  get signalWords(): string {
    return STOP_WORDS[interruption(this.#interrupt).signal];
  }

  /** The run is over: `--duration` no longer counts. */
  end(): void {
    this.#timer?.cancel();
  }
}
