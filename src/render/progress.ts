import type { Runtime } from '../runtime.js';

export interface Progress {
  update(text: string): void;
  /** Clears the line; call before anything else is written to stderr. */
  done(): void;
}

const CLEAR_LINE = '\r\x1b[2K';

/** One rewritten status line on stderr, only when `rt.showProgress` (a terminal, outside CI, not --quiet). */
export function progressLine(rt: Runtime): Progress {
  if (!rt.showProgress) return { update() {}, done() {} };
  const stderr = rt.ctx.io.stderr;
  let shown = false;
  return {
    update(text) {
      stderr.write(`${CLEAR_LINE}${text}`);
      shown = true;
    },
    done() {
      if (shown) stderr.write(CLEAR_LINE);
      shown = false;
    },
  };
}

/** `fetched 300 of 1,234` (or `fetched 300` when the total is unknown). */
export function fetchedText(count: number, total?: number): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return total === undefined ? `fetched ${n(count)}` : `fetched ${n(count)} of ${n(total)}`;
}
