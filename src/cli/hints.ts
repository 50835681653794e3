import type { Credentials, ValueSource } from '../config/credentials.js';
import { CliError, type ErrorReason } from '../errors.js';

/** What the CLI knows of the invocation that failed, to make its advice precise. */
export interface HintContext {
  /** The credentials in use, when they were resolved. */
  credentials?: Credentials | undefined;
}

/** How to name a value's origin: `--client-id`, `SVCADM_CLIENT_ID`, or the profile. */
function named(source: ValueSource | undefined, flag: string, variable: string, what: string): string {
  if (source === 'flag') return flag;
  if (source === 'environment') return variable;
  if (source?.startsWith('profile ')) return `the ${what} of ${source}`;
  return `the ${what}`;
}

/** Which values to check when the token service refuses the client, named where they came from. */
function refusedCredentials(credentials: Credentials | undefined): string {
  if (credentials?.auth.kind !== 'client') return 'check the client id, secret (or private key) and audience you gave';
  const { sources } = credentials;
  const key = credentials.auth.credential.kind === 'assertion';
  const profile = sources.client?.startsWith('profile ') ? sources.client.slice('profile '.length) : undefined;
  const audience =
    sources.audience === 'default'
      ? ''
      : ` and ${named(sources.audience, '--audience', 'SVCADM_AUDIENCE', 'audience')}`;
  if (profile !== undefined && sources.credential === sources.client) {
    return `check the client id and ${key ? 'private key' : 'secret'} of profile ${profile}${audience} (\`svcadm profiles show ${profile}\`)`;
  }
  const client = named(sources.client, '--client-id', 'SVCADM_CLIENT_ID', 'client id');
  const credential = key
    ? named(sources.credential, '--client-assertion-key', 'SVCADM_CLIENT_ASSERTION_KEY', 'private key')
    : named(sources.credential, '--client-secret', 'SVCADM_CLIENT_SECRET', 'secret');
  return `check ${client} and ${credential}${audience}`;
}

/** What to say when the interface refuses a token: where the token or the client came from. */
function refusedToken(credentials: Credentials | undefined): string {
  if (credentials?.auth.kind === 'token') {
    const where = credentials.sources.credential === 'flag' ? '--token' : 'SVCADM_TOKEN';
    return `the token given with ${where} was refused: get a new one`;
  }
  return 'check the client credentials; `svcadm auth status` shows each value in use and where it comes from';
}

/** What the user can do about each situation the API layer names, in the CLI's words. */
const REASON_HINTS: Readonly<Record<ErrorReason, (context: HintContext) => string>> = {
  unauthorized: ({ credentials }) => refusedToken(credentials),
  token_refused: ({ credentials }) => refusedCredentials(credentials),
  rate_limited: () => 'wait and run again, or raise --max-retries',
  timeout: () => 'raise --timeout',
  too_many_streams: () =>
    'plans allow 1, 4 or 8 event streams at once: stop another `svcadm events tail` (or other consumer), then try again',
  cursor_expired: () => 'restart with --since (e.g. `svcadm events tail --since 1h`)',
  invalid_cursor: () => 'check the cursor given with --from or held in the cursor file',
  forward_failed: () => 'fix the app at --forward-to, then resume: the event it did not acknowledge is sent again',
};

/**
 * The refine hook every command's failure passes through (`Host`): the CLI's advice for the error's reason goes
 * first in its hint, before what the command added (a delete's correlation id). The error is not rebuilt.
 */
export function refineError(err: unknown, context: HintContext): unknown {
  if (err instanceof CliError && err.reason !== undefined) {
    const advice = REASON_HINTS[err.reason](context);
    err.hint = err.hint ? `${advice}; ${err.hint}` : advice;
  }
  return err;
}
