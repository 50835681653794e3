import { timestampOf } from '../../api/timestamp.js';

/**
 * A stream that reached no cursor resumes from where it started: the time given (`--since`, saved, or asked by an
 * MCP call), else its start taken this much early, so that an event the service stamped a little before svcadm's
 * clock read the start is not missed (docs/decisions/2026-11-28-resume-from-the-start.md).
 */
export const START_SLACK_MS = 60_000;

/** The time (`YYYY-MM-DDTHH:MM:SSZ`) a stream that reached no cursor resumes from. */
export function resumeSince(since: string | undefined, startedAt: number): string {
  return since ?? timestampOf(startedAt - START_SLACK_MS);
}
