import type { Clock, Timer } from '../../src/clock.js';

interface Pending {
  due: number;
  fn: () => void;
  /** Set for intervals: re-armed after each call. */
  every?: number;
}

/**
 * Virtual time for tests. `sleep(ms)` records the wait that was asked for and moves time forward by it at once
 * (firing any timer that falls due), so backoff, Retry-After and reconnect delays cost nothing and can be asserted
 * exactly. Timers fire only when time moves: through a sleep or `advance`.
 */
export class VirtualClock implements Clock {
  #now: number;
  readonly #pending = new Set<Pending>();
  /** Every wait asked of `sleep`, in order. */
  readonly sleeps: number[] = [];

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return;
    this.advance(ms);
    // Let I/O that the wait would have allowed run before the sleeper goes on.
    await new Promise((resolve) => setImmediate(resolve));
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.#add({ due: this.#now + Math.max(0, ms), fn });
  }

  setInterval(fn: () => void, ms: number): Timer {
    const every = Math.max(1, ms);
    return this.#add({ due: this.#now + every, fn, every });
  }

  /** Moves time forward, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: Pending | undefined;
      for (const p of this.#pending) if (p.due <= target && (!next || p.due < next.due)) next = p;
      if (!next) break;
      this.#now = next.due;
      if (next.every === undefined) this.#pending.delete(next);
      else next.due += next.every;
      next.fn();
    }
    this.#now = target;
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.#pending.size;
  }

  #add(pending: Pending): Timer {
    this.#pending.add(pending);
    const delay = pending.every ?? pending.due - this.#now;
    return {
      cancel: () => {
        this.#pending.delete(pending);
      },
      refresh: () => {
        pending.due = this.#now + delay;
      },
    };
  }
}
