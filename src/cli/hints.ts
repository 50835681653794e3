import { isLoopbackHost } from '../config/tenant.js';
import { CliError, type ErrorReason } from '../errors.js';
import type { PasteHint } from './paste.js';

export type { PasteHint } from './paste.js';

/** Without the options of a run (an error before the command started): the command alone. */
const BARE: PasteHint = (words) => ['svcadm', ...words].join(' ');

/** What the user can do about each situation the API layer names, in the CLI's words; commands are pasteable. */
const REASON_HINTS: Readonly<Record<ErrorReason, (paste: PasteHint, err: CliError) => string>> = {
  unauthorized: (paste) => `check the client credentials; \`${paste(['auth', 'status'])}\` shows what is in use`,
  // No command here: `profiles show` would show the current profile, not necessarily the credentials refused.
  token_refused: () => 'check the client id, secret and audience',
  rate_limited: () => 'wait and run again, or raise --max-retries',
  timeout: () => 'raise --timeout',
  too_many_streams: () =>
    'the plan limits concurrent streams: stop another `svcadm events tail` (or other consumer) and try again',
  cursor_expired: (paste) => `restart with --since (e.g. \`${paste(['events', 'tail', '--since', '1h'])}\`)`,
  invalid_cursor: () => 'check the cursor given with --from or held in the cursor file',
  plain_http: (_paste, err) => {
    const origin = err.subject === undefined ? undefined : URL.parse(err.subject);
    return origin && isLoopbackHost(origin.hostname)
      ? `for a server on this machine without TLS, use --domain ${origin.origin}`
      : 'check the port: a tenant speaks https (plain http is for loopback hosts only)';
  },
};

/** The hint shown with an error: the CLI's advice for its reason first, then what the error itself carries. */
export function hintFor(err: unknown, paste: PasteHint = BARE): string | undefined {
  if (!(err instanceof CliError)) return undefined;
  const advice = err.reason === undefined ? undefined : REASON_HINTS[err.reason](paste, err);
  const parts = [advice, err.hint].filter((part): part is string => part !== undefined && part !== '');
  return parts.length > 0 ? parts.join('; ') : undefined;
}
