import type { Clock, Timer } from '../../clock.js';

/**
 * What ends a tail, the single one and the one merged across tenants alike: Ctrl-C, `--duration`, a write that failed
 * after it was handed over (thrown where it is awaited), and `q` in the interactive view (as --max-events does).
 */
export class TailStops {
  /** Aborted when `--duration` has passed. */
  readonly duration = new AbortController();
  readonly writeFailed = new AbortController();
  readonly #interrupt: AbortSignal;
  readonly #timer: Timer | undefined;

  constructor(interrupt: AbortSignal, clock: Clock, durationMs: number | undefined) {
    this.#interrupt = interrupt;
    this.#timer = durationMs === undefined ? undefined : clock.setTimeout(() => this.duration.abort(), durationMs);
  }

  /** Any of the stops, and the view's `q` when it has one. */
  signal(quit: AbortSignal | undefined): AbortSignal {
    return AbortSignal.any([this.#interrupt, this.duration.signal, this.writeFailed.signal, ...(quit ? [quit] : [])]);
  }

  /** A pipeline's failed write stops the tail too. */
  follow(writeFailed: AbortSignal): void {
    writeFailed.addEventListener('abort', () => this.writeFailed.abort(), { once: true });
  }

  /** The run is over: `--duration` no longer counts. */
  end(): void {
    this.#timer?.cancel();
  }
}
