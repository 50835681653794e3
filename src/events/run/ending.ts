import { timestampOf } from '../../api/timestamp.js';
import { NetworkError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import type { Outage } from '../stream/stream-health.js';

/** One line: since when a stream has been down, and its last failure. */
export function outageText(outage: Outage): string {
  const never = outage.neverConnected ? ', never connected' : '';
  return `the event stream has been down since ${timestampOf(outage.since)}${never}: ${neutralize(outage.reason)}`;
}

/** A tail that ends while its stream is down: exit 7 (docs/decisions/2026-11-23-tail-down-exit-7.md). */
export function outageError(outage: Outage): NetworkError {
  return new NetworkError(outageText(outage));
}

/** `svcadm: interrupted after 12 events (…)`: how a run stopped, for people, when it does not forward. */
export function stopLine(how: string, count: number, extras: readonly string[]): string {
  const more = extras.map((extra) => ` (${extra})`).join('');
  return `svcadm: ${how} after ${count} ${count === 1 ? 'event' : 'events'}${more}`;
}

/** `3 malformed lines skipped`, or nothing. */
export function skippedText(malformed: number): string | undefined {
  return malformed > 0 ? `${malformed} malformed ${malformed === 1 ? 'line' : 'lines'} skipped` : undefined;
}
