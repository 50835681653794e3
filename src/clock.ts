/** A pending call of the clock's; `cancel` is safe to call more than once. */
export interface Timer {
  cancel(): void;
  /** Starts the wait again from now (an idle timer pushed back by activity). */
  refresh(): void;
}

/**
 * Time, injected through the Context: the HTTP layer, the event stream, the cursor-file writer, `--duration` and the
 * live view take every wait from here, so tests run them on virtual time.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts (the caller looks at the signal to tell which). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` once after `ms`, however long that is. */
  setTimeout(fn: () => void, ms: number): Timer;
  /** Calls `fn` every `ms` until cancelled. */
  setInterval(fn: () => void, ms: number): Timer;
}

/** Node's timers take at most 2^31 - 1 ms; beyond it they fire at once. Longer waits are chained. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = chainedTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  },
  setTimeout: chainedTimeout,
  setInterval(fn, ms) {
    const handle = setInterval(fn, Math.min(Math.max(1, ms), MAX_TIMER_MS));
    return { cancel: () => clearInterval(handle), refresh: () => handle.refresh() };
  },
};

function chainedTimeout(fn: () => void, ms: number): Timer {
  let handle: NodeJS.Timeout | undefined;
  let deadline = 0;
  const arm = (wait: number) => {
    handle = setTimeout(
      () => {
        const left = deadline - Date.now();
        if (left > 0) arm(left);
        else {
          handle = undefined;
          fn();
        }
      },
      Math.min(Math.max(0, wait), MAX_TIMER_MS),
    );
  };
  const start = () => {
    deadline = Date.now() + Math.max(0, ms);
    arm(ms);
  };
  start();
  return {
    cancel() {
      if (handle) clearTimeout(handle);
      handle = undefined;
    },
    refresh() {
      if (handle === undefined) return;
      // The common case (a stream's idle timer, pushed back on every chunk) stays one cheap native refresh.
      if (ms <= MAX_TIMER_MS) {
        deadline = Date.now() + ms;
        handle.refresh();
        return;
      }
      clearTimeout(handle);
      start();
    },
  };
}
