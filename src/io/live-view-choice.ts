import type { Env, InStream, OutStream } from '../context.js';
import type { OutputFormat } from '../global-options.js';

/**
 * How a stream of items (events tail) is shown to people:
 * - `interactive`: the Ink app, with keys (pause, filter, inspector, quit);
 * - `redraw`: lines above one status line redrawn in place, no keys (stdin is not a terminal, or CI);
 * - `lines`: lines one after another (off a terminal, `TERM=dumb`, `-o wide`).
 */
export type StreamViewKind = 'interactive' | 'redraw' | 'lines';

export interface ViewChoiceInput {
  format: OutputFormat;
  /** stdout takes cursor movement: a terminal, not `TERM=dumb` (global options). */
  redraw: boolean;
  stdin: Pick<InStream, 'isTTY'>;
  stdout: Pick<OutStream, 'isTTY'>;
  env: Env;
}

/**
 * The one decision of "is this a terminal a person works at" for the live view. Ink needs keys from a terminal on
 * stdin; in CI (Ink's own is-in-ci rule, read from the same variables) Ink would hold every frame back until the end,
 * so there the redrawn status line stays.
 */
export function streamViewKind(input: ViewChoiceInput): StreamViewKind {
  if (input.format !== 'table' || !input.redraw) return 'lines';
  if (input.stdin.isTTY !== true || input.stdout.isTTY !== true || inCi(input.env)) return 'redraw';
  return 'interactive';
}

/** is-in-ci's rule: CI or CONTINUOUS_INTEGRATION or a CI_* variable, unless CI is `0` or `false`. */
function inCi(env: Env): boolean {
  if (env.CI === '0' || env.CI === 'false') return false;
  return Object.entries(env).some(
    ([key, value]) =>
      value !== undefined && (key === 'CI' || key === 'CONTINUOUS_INTEGRATION' || key.startsWith('CI_')),
  );
}
