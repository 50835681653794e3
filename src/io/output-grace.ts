import type { Clock } from '../clock.js';
import { interruption } from '../errors.js';

/**
 * How long after a stop signal the output is given to take what was handed to it; past it, what still waits is
 * abandoned, so that a reader that reads nothing cannot hold a stop (the run ends within 2 s of the signal;
 * docs/decisions/2026-11-28-stop-with-a-stalled-reader.md).
 */
export const STOP_OUTPUT_GRACE_MS = 1000;

const graces = new WeakMap<AbortSignal, AbortSignal>();

/**
 * Aborts STOP_OUTPUT_GRACE_MS (on `clock`) after `interrupt` does, with the interrupt's `Interrupted` as its reason:
 * every wait on stdout or stderr of the run gives up then. One signal for every caller of one interrupt.
 */
export function outputGrace(interrupt: AbortSignal, clock: Clock): AbortSignal {
  const known = graces.get(interrupt);
  if (known) return known;
  const grace = new AbortController();
  const start = () => clock.setTimeout(() => grace.abort(interruption(interrupt)), STOP_OUTPUT_GRACE_MS);
  if (interrupt.aborted) start();
  else interrupt.addEventListener('abort', start, { once: true });
  graces.set(interrupt, grace.signal);
  return grace.signal;
}

/** `wait`, unless `grace` aborts first: then its reason (the signal's `Interrupted`) is thrown. */
export function withinGrace<T>(wait: Promise<T>, grace: AbortSignal | undefined): Promise<T> {
  if (grace === undefined) return wait;
  return new Promise<T>((resolve, reject) => {
    const givenUp = () => reject(grace.reason);
    if (grace.aborted) givenUp();
    else grace.addEventListener('abort', givenUp, { once: true });
    wait.then(
      (value) => {
        grace.removeEventListener('abort', givenUp);
        resolve(value);
      },
      (err: unknown) => {
        grace.removeEventListener('abort', givenUp);
        reject(err);
      },
    );
  });
}
