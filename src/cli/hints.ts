import { CREDENTIAL_VARIABLES as V } from '../config/credential-variables.js';
import type { Credentials, ValueSource } from '../config/credentials.js';
import { isLoopbackHost } from '../config/tenant.js';
import { CliError, type ErrorReason } from '../errors.js';
import { shellWord } from '../util/shell-word.js';
import type { PasteHint } from './paste.js';

export type { PasteHint } from './paste.js';

/** What the CLI knows of the invocation that failed, to make its advice precise and its commands pasteable. */
export interface HintContext {
  /** The credentials in use, when they were resolved. */
  credentials?: Credentials | undefined;
  /** How this run writes a command to paste (with its -p, --domain, -o). */
  paste?: PasteHint | undefined;
}

/** Without the options of a run: the command alone. */
const BARE: PasteHint = (words) => ['svcadm', ...words].join(' ');

/** How to name a value's origin: `--client-id`, `SVCADM_CLIENT_ID`, or the profile. */
function named(source: ValueSource | undefined, flag: string, variable: string, what: string): string {
  if (source === 'flag') return flag;
  if (source === 'environment') return variable;
  if (source?.startsWith('profile ')) return `the ${what} of ${source}`;
  return `the ${what}`;
}

/** Which values to check when the token service refuses the client, named where they came from. */
function refusedCredentials(credentials: Credentials | undefined, paste: PasteHint): string {
  if (credentials?.auth.kind !== 'client') return 'check the client id, secret (or private key) and audience you gave';
  const { sources } = credentials;
  const key = credentials.auth.credential.kind === 'assertion';
  const profile = sources.client?.startsWith('profile ') ? sources.client.slice('profile '.length) : undefined;
  const audience =
    sources.audience === 'default' ? '' : ` and ${named(sources.audience, '--audience', V.audience, 'audience')}`;
  if (profile !== undefined && sources.credential === sources.client) {
    const show = paste(['profiles', 'show', profile]);
    return `check the client id and ${key ? 'private key' : 'secret'} of profile ${profile}${audience} (\`${show}\`)`;
  }
  const client = named(sources.client, '--client-id', V.clientId, 'client id');
  const credential = key
    ? named(sources.credential, '--client-assertion-key', V.clientAssertionKey, 'private key')
    : named(sources.credential, '--client-secret', V.clientSecret, 'secret');
  return `check ${client} and ${credential}${audience}`;
}

/** What to say when the interface refuses a token: where the token or the client came from. */
function refusedToken(credentials: Credentials | undefined, paste: PasteHint): string {
  if (credentials?.auth.kind === 'token') {
    const where = credentials.sources.credential === 'flag' ? '--token' : V.token;
    return `the token given with ${where} was refused: get a new one`;
  }
  return `check the client credentials; \`${paste(['auth', 'status'])}\` shows each value in use and where it comes from`;
}

/** Where the audience in use came from, in words, for the hint of a refused audience. */
function audienceOrigin(credentials: Credentials | undefined): string {
  const source = credentials?.sources.audience;
  if (source === 'flag') return 'given with --audience';
  if (source === 'environment') return `from ${V.audience}`;
  if (source?.startsWith('profile ')) return `the audience of ${source}`;
  return 'the default, from the tenant domain';
}

/** A cursor the service refused: started again from a time, keeping the command's other words. */
function restartFromTime(paste: PasteHint, err: CliError): string | undefined {
  return err.restart && paste(['events', 'tail', '--since', '1h', ...err.restart.words]);
}

/** What the user can do about each situation the API layer names, in the CLI's words; commands are pasteable. */
const REASON_HINTS: Readonly<
  Record<ErrorReason, (context: { credentials?: Credentials | undefined; paste: PasteHint }, err: CliError) => string>
> = {
  unauthorized: ({ credentials, paste }) => refusedToken(credentials, paste),
  token_refused: ({ credentials, paste }) => refusedCredentials(credentials, paste),
  rate_limited: () => 'wait and run again, or raise --max-retries',
  timeout: () => 'raise --timeout',
  too_many_streams: () =>
    'plans allow 1, 4 or 8 event streams at once: stop another `svcadm events tail` (or other consumer), then try again',
  events_unavailable: () =>
    'the Events feature is not enabled on this tenant (or --domain names another service): enable it in the tenant settings',
  cursor_expired: ({ paste }, err) =>
    `restart with --since (e.g. \`${restartFromTime(paste, err) ?? paste(['events', 'tail', '--since', '1h'])}\`)`,
  invalid_cursor: ({ paste }, err) => {
    const restart = restartFromTime(paste, err);
    if (err.restart === undefined || restart === undefined) {
      return 'check the cursor given with --from or held in the cursor file';
    }
    return `the cursor came from ${err.restart.cursorFrom}; the service does not know it (it may have restarted, or the cursor is from another tenant): resume from a time with \`${restart}\``;
  },
  forward_failed: () =>
    'fix the app at --forward-to, then resume: the event is sent again (or set such events aside with --dead-letter <file>)',
  forward_rejected: () =>
    'fix the app at --forward-to, then resume: the event is sent again (or set such events aside with --dead-letter <file>)',
  cursor_file_failed: () => 'free space or fix the cursor file, then resume with the line above',
  config_invalid: ({ paste }, err) =>
    err.subject === undefined
      ? 'repair or delete the file'
      : `repair the file, or remove the profile with \`${paste(['profiles', 'remove', err.subject])}\``,
  outcome_unknown: (_context, err) => `correlation id ${err.subject ?? 'unknown'}`,
  clock_skew: (_context, err) =>
    `the refusal is about time: this machine's clock may be off${err.subject ? ` (${err.subject})` : ''}; set it right (NTP) and try again`,
  wait_too_long: (_context, err) => `try again after ${err.subject ?? 'the time the service gave'}`,
  audience_refused: ({ credentials }, err) =>
    `the token service does not know the audience ${err.subject ?? ''} (${audienceOrigin(credentials)}): give the API's identifier with --audience or ${V.audience} (behind a custom domain, the tenant's original domain: https://<tenant>/api/v2/)`,
  tls_unverified: () =>
    'the certificate is not signed by a CA this machine trusts: for a private or corporate CA, set NODE_EXTRA_CA_CERTS to its PEM file (and check the tenant domain)',
  policy_not_found: ({ paste }) => `\`${paste(['policies', 'list'])}\` shows the ids`,
  connection_not_found: ({ paste }) =>
    `\`${paste(['connections', 'list', '--strategy', 'auth0'])}\` shows the database connections`,
  not_database_connection: ({ paste }) =>
    `only a database connection holds users to delete: \`${paste(['connections', 'list', '--strategy', 'auth0'])}\` lists them`,
  checkpoint_invalid: () => 'a checkpoint lasts 24 hours: start again from the first page, without --from',
  keyring_unavailable: (_context, err) =>
    err.subject === undefined
      ? `unlock the keyring, or give the secret with ${V.clientSecret}`
      : `unlock the keyring and run again, or pass --insecure-storage to keep the secret in ${err.subject} (mode 0600)`,
  plain_http: (_context, err) => {
    const origin = err.subject === undefined ? undefined : URL.parse(err.subject);
    return origin && isLoopbackHost(origin.hostname)
      ? `for a server on this machine without TLS, use --domain ${origin.origin}`
      : 'check the port: a tenant speaks https (plain http is for loopback hosts only)';
  },
};

/**
 * The refine hook every command's failure passes through (`Host`): the CLI's advice for the error's reason goes
 * first in its hint, before what the command added (a delete's correlation id). The error is not rebuilt.
 */
export function refineError(err: unknown, context: HintContext): unknown {
  if (err instanceof CliError && err.reason !== undefined) {
    const advice = REASON_HINTS[err.reason]({ credentials: context.credentials, paste: context.paste ?? BARE }, err);
    err.hint = err.hint ? `${advice}; ${err.hint}` : advice;
  }
  return err;
}

/**
 * The command that removes a profile's secret left in the OS keyring (its record is gone, the keyring was locked):
 * the entry @napi-rs/keyring made for `service` and `account` on this platform.
 */
export function keyringEntryRemoval(service: string, account: string, platform = process.platform): string {
  if (platform === 'darwin')
    return `security delete-generic-password -s ${shellWord(service)} -a ${shellWord(account)}`;
  if (platform === 'win32') return `cmdkey /delete:"${account}.${service}"`;
  return `secret-tool clear service ${shellWord(service)} username ${shellWord(account)}`;
}
