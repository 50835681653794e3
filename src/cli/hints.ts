import { CliError, type ErrorReason } from '../errors.js';

/** What the user can do about each situation the API layer names, in the CLI's words. */
const REASON_HINTS: Readonly<Record<ErrorReason, string>> = {
  unauthorized: 'check the client credentials; `svcadm auth status` shows what is in use',
  token_refused: 'check the client id, secret and audience (`svcadm profiles show`)',
  rate_limited: 'wait and run again, or raise --max-retries',
  timeout: 'raise --timeout',
  too_many_streams:
    'the plan limits concurrent streams: stop another `svcadm events tail` (or other consumer) and try again',
  cursor_expired: 'restart with --since (e.g. `svcadm events tail --since 1h`)',
  invalid_cursor: 'check the cursor given with --from or held in the cursor file',
  forward_failed: 'fix the app at --forward-to, then resume: the event it did not acknowledge is sent again',
};

/** The hint shown with an error: the CLI's advice for its reason first, then what the error itself carries. */
export function hintFor(err: unknown): string | undefined {
  if (!(err instanceof CliError)) return undefined;
  const advice = err.reason === undefined ? undefined : REASON_HINTS[err.reason];
  const parts = [advice, err.hint].filter((part): part is string => part !== undefined && part !== '');
  return parts.length > 0 ? parts.join('; ') : undefined;
}
