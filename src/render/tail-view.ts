import { neutralize } from '../text/sanitize.js';
import { paint, type Style } from './color.js';
import { groupedCount } from './progress-text.js';
import { clip, displayWidth } from './text-width.js';

export interface TailStatus {
  state: 'connecting' | 'connected' | 'reconnecting' | 'stopped';
  /** Reconnect attempt (1-based) while reconnecting. */
  attempt: number;
  /** When the next attempt starts, while reconnecting (clock time). */
  reconnectAt?: number | undefined;
  /** Why it is reconnecting, or why it stopped. */
  reason?: string | undefined;
  types: readonly string[];
  seen: number;
  /** Events per second, recent. */
  rate: number;
  cursor: string | undefined;
  /** The clock's time when the status was taken: the countdown counts from it. */
  now: number;
  /** With --forward-to: what the app took, what was set aside, and the event being tried again. */
  forward?: ForwardStatus | undefined;
}

/** A run's status before anything has come: the types asked for, the position it starts from, forwarding's counts. */
export function startingStatus(
  state: 'connecting' | 'connected',
  types: readonly string[],
  cursor: string | undefined,
  now: number,
  forward?: ForwardStatus,
): TailStatus {
  return { state, attempt: 0, types, seen: 0, rate: 0, cursor, now, ...(forward ? { forward } : {}) };
}

/** The forwarding part of the status line. */
export interface ForwardStatus {
  forwarded: number;
  deadLettered: number;
  /** Of the dead-lettered: those the app rejected (the others ran out of attempts). */
  rejected: number;
  /** The event being tried again: its next attempt and when it starts (clock time). */
  retrying?: { attempt: number; at: number } | undefined;
}

/** `2 rejected, 1 out of attempts`: the classes of the dead letters. */
export function deadLetterClasses(rejected: number, deadLettered: number): string {
  const exhausted = deadLettered - rejected;
  const parts = [];
  if (rejected > 0) parts.push(`${groupedCount(rejected)} rejected`);
  if (exhausted > 0) parts.push(`${groupedCount(exhausted)} out of attempts`);
  return parts.join(', ');
}

/** `12 forwarded · retrying (attempt 3, next try in 2s) · 1 dead-lettered` */
function forwardParts(status: TailStatus): string[] {
  const { forward } = status;
  if (!forward) return [];
  const parts = [`${groupedCount(forward.forwarded)} forwarded`];
  if (forward.retrying) {
    const left = Math.max(0, Math.ceil((forward.retrying.at - status.now) / 1000));
    parts.push(`retrying (attempt ${forward.retrying.attempt}, next try in ${left}s)`);
  }
  if (forward.deadLettered > 0) {
    parts.push(
      `${groupedCount(forward.deadLettered)} dead-lettered (${deadLetterClasses(forward.rejected, forward.deadLettered)})`,
    );
  }
  return parts;
}

const SEPARATOR = ' · ';
/** A reason is cut rather than left out, down to this much. */
const REASON_MIN = 12;

const STATE_TONE: Record<TailStatus['state'], Style> = {
  connected: ['bold', 'green'],
  connecting: ['bold', 'yellow'],
  reconnecting: ['bold', 'yellow'],
  stopped: ['bold', 'gray'],
};

function stateText(status: TailStatus): string {
  switch (status.state) {
    case 'connected':
      return '● connected';
    case 'connecting':
      return '○ connecting';
    case 'reconnecting': {
      const left = Math.ceil(((status.reconnectAt ?? status.now) - status.now) / 1000);
      return `○ reconnecting ${left > 0 ? `in ${left}s` : 'now'} (attempt ${status.attempt})`;
    }
    case 'stopped':
      return '■ stopped';
  }
}

/**
 * The live view's status line, for `width` terminal columns, clear of the last one so that it never wraps: the
 * state (with the countdown and why, while reconnecting; why, once stopped), then as much as fits of events seen,
 * rate, filters and cursor, each whole or not at all.
 */
export function statusLine(status: TailStatus, width: number, color: boolean): string {
  const room = width - 1;
  const head = clip(stateText(status), room);
  let line = paint(STATE_TONE[status.state], head, color);
  let used = displayWidth(head);
  if (status.reason !== undefined && status.reason !== '') {
    const reason = `: ${neutralize(status.reason)}`;
    const left = room - used;
    if (left >= Math.min(REASON_MIN, displayWidth(reason))) {
      const shown = clip(reason, left);
      line += shown;
      used += displayWidth(shown);
    }
  }
  const events = `${groupedCount(status.seen)} ${status.seen === 1 ? 'event' : 'events'}`;
  const parts = [
    events,
    ...forwardParts(status),
    ...(status.state === 'stopped' ? [] : [`${status.rate.toFixed(1)}/s`]),
    status.types.length > 0 ? neutralize(status.types.join(',')) : 'all types',
    `cursor ${status.cursor === undefined ? '-' : neutralize(status.cursor)}`,
  ];
  for (const part of parts) {
    const piece = `${SEPARATOR}${part}`;
    if (used + displayWidth(piece) > room) break;
    line += piece;
    used += displayWidth(piece);
  }
  return line;
}
