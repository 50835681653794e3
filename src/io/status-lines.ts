import type { Clock } from '../clock.js';
import type { StreamView } from './stream-types.js';

/** Accessible mode: the stream's status said again at most this often while nothing changes. */
export const STATUS_LINE_MS = 30_000;

/** A stream's status as plain lines on stderr (accessible mode), never redrawn. */
export interface StatusLines<S> {
  update(status: S): void;
  /** The last status (stopped), said whatever was said before. */
  final(status: S): void;
}

/** The status line in words: without the state's symbol (`●`) and the ` · ` separators a screen reader spells out. */
function words(line: string): string {
  return line.replace(/^[^\p{L}\p{N}]+/u, '').replaceAll(' · ', ', ');
}

/** What tells one state from another: the line's first part, without the reconnect countdown. */
function stateOf(line: string): string {
  return (line.split(', ')[0] ?? '').replace(/ in \d+s\b/, '');
}

/**
 * The status of a stream, for accessible mode, as whole lines: one when the state changes (connected, reconnecting,
 * a new attempt), else one every `STATUS_LINE_MS` of the clock, so that a screen reader is told without being kept
 * talking (docs/decisions/2026-11-26-accessible-mode.md).
 */
export async function statusLines<I, S, R>(
  view: () => Promise<StreamView<I, S, R>>,
  write: (line: string) => void,
  clock: Pick<Clock, 'now'>,
): Promise<StatusLines<S>> {
  const { status } = await view();
  let lastState: string | undefined;
  let lastAt = 0;
  const say = (s: S, always: boolean) => {
    const line = words(status(s, Number.POSITIVE_INFINITY, false));
    const state = stateOf(line);
    const now = clock.now();
    if (!always && state === lastState && now - lastAt < STATUS_LINE_MS) return;
    lastState = state;
    lastAt = now;
    write(line);
  };
  return { update: (s) => say(s, false), final: (s) => say(s, true) };
}
