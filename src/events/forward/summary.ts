import { deadLetterClasses } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import type { ForwardCounts } from './delivery.js';
import type { RetryState } from './forwarder.js';

/** How a forwarding run ended, for its summary. */
export interface RunEnd {
  /** Events that went through (acknowledged or dead-lettered). */
  events: number;
  /** `interrupted`, `stopped`, `reached --max-events`, `finished`… */
  how: string;
  /** The event being tried again when it stopped. */
  retrying: RetryState | undefined;
  /** The dead-letter file, when there is one. */
  deadLetter: string | undefined;
  /** The command that resumes the run, when it stopped before its end. */
  resume: string | undefined;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The summary as data: one JSON line on stderr in agent mode and in the data formats. */
export function summaryValue(counts: ForwardCounts, end: RunEnd): Record<string, unknown> {
  const byType: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [type, c] of counts.byType) byType[type] = { forwarded: c.forwarded, dead_lettered: c.deadLettered };
  return {
    summary: {
      events: end.events,
      forwarded: counts.forwarded,
      dead_lettered: counts.deadLettered,
      rejected: counts.rejected,
      out_of_attempts: counts.deadLettered - counts.rejected,
      retrying: end.retrying ? { attempt: end.retrying.attempt, reason: end.retrying.reason } : null,
      by_type: byType,
      ...(end.deadLetter === undefined ? {} : { dead_letter: end.deadLetter }),
      stopped: end.how,
      ...(end.resume === undefined ? {} : { resume: end.resume }),
    },
  };
}

/**
 * The summary for people: a line with the totals, one line per event type (aligned), then the resume line.
 *   svcadm: interrupted after 12 events: 10 forwarded, 2 dead-lettered (to dead.ndjson)
 *     user.created  8 forwarded, 1 dead-lettered
 */
export function summaryText(counts: ForwardCounts, end: RunEnd): string {
  const outcomes = [`${counts.forwarded} forwarded`];
  if (counts.deadLettered > 0 || end.deadLetter !== undefined) {
    const to = end.deadLetter === undefined ? '' : ` to ${neutralize(end.deadLetter)}`;
    const classes = deadLetterClasses(counts.rejected, counts.deadLettered);
    outcomes.push(`${counts.deadLettered} dead-lettered${to}${classes === '' ? '' : ` (${classes})`}`);
  }
  if (end.retrying) outcomes.push(`1 retrying (attempt ${end.retrying.attempt}: ${neutralize(end.retrying.reason)})`);
  const lines = [`svcadm: ${end.how} after ${plural(end.events, 'event')}: ${outcomes.join(', ')}`];
  const types = [...counts.byType.keys()].map((t) => neutralize(t).slice(0, 64));
  const width = Math.max(0, ...types.map((t) => t.length));
  for (const [i, c] of [...counts.byType.values()].entries()) {
    const dead = c.deadLettered > 0 ? `, ${c.deadLettered} dead-lettered` : '';
    lines.push(`  ${(types[i] ?? '').padEnd(width)}  ${c.forwarded} forwarded${dead}`);
  }
  if (end.resume !== undefined) lines.push(`resume with: ${end.resume}`);
  return lines.join('\n');
}
