import {
  CliError,
  type ErrorKind,
  type ErrorReason,
  Interrupted,
  type LocalErrorCode,
  ParserExit,
  type StopSignal,
} from './errors.js';

/** The one table of exit codes (cli.md, "Exit codes"). No other module holds an exit-code number. */
const EXIT_CODES: Readonly<Record<Exclude<ErrorKind, 'interrupted'> | 'ok', number>> = {
  ok: 0,
  bug: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  not_found: 5,
  rate_limited: 6,
  network: 7,
  rejected: 8,
  partial: 9,
  differs: 10,
  // sysexits.h's EX_IOERR: stdout or stderr could not be written (a full disk, a closed pipe other than EPIPE).
  output: 74,
};

/** What a shell reports for a process the signal killed: 128 + the signal number. */
const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** What each exit code means (cli.md, "Exit codes"), for `svcadm commands --json`. */
const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof EXIT_CODES, string>> = {
  ok: 'success',
  bug: 'unexpected failure (a bug)',
  usage: 'usage error or invalid input; nothing was sent to the service',
  auth: 'authentication failed: 401, token request refused, or no credentials configured',
  forbidden: 'forbidden: 403 (the message names the missing scope when known)',
  not_found: 'not found: 404',
  rate_limited: 'rate limited: still 429 after the retries, or asked to wait longer than svcadm waits (60 s)',
  network: 'network failure, timeout, malformed response, or 5xx after the retries',
  rejected: 'the service rejected the request otherwise (400, 409, 410, 413, other 4xx)',
  partial: 'some tenants failed and others did not (--profiles); each failed tenant and its code is named on stderr',
  differs: 'svcadm diff found differences (not a failure)',
  output: 'stdout or stderr could not be written',
};

const SIGNAL_MEANINGS: Readonly<Record<StopSignal, string>> = {
  SIGINT: 'interrupted (Ctrl-C)',
  SIGHUP: 'stopped by SIGHUP, after the same clean stop as Ctrl-C',
  SIGTERM: 'stopped by SIGTERM, after the same clean stop as Ctrl-C',
};

export interface ExitCodeEntry {
  code: number;
  /** The error kind, or the signal, that gives this code. */
  kind: string;
  meaning: string;
}

/** Every exit code svcadm can end with, in order, read off the one table. */
export function exitCodeTable(): ExitCodeEntry[] {
  const kinds = (Object.keys(EXIT_CODES) as Array<keyof typeof EXIT_CODES>).map((kind) => ({
    code: EXIT_CODES[kind],
    kind,
    meaning: EXIT_CODE_MEANINGS[kind],
  }));
  const signals = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((signal) => ({
    code: SIGNAL_EXIT_CODES[signal],
    kind: signal,
    meaning: SIGNAL_MEANINGS[signal],
  }));
  return [...kinds, ...signals].sort((a, b) => a.code - b.code);
}

/** The exit codes as the root help lists them. */
export const EXIT_CODE_SUMMARY = `Exit codes: ${EXIT_CODES.ok} ok, ${EXIT_CODES.bug} bug, ${EXIT_CODES.usage} usage, ${EXIT_CODES.auth} auth, ${EXIT_CODES.forbidden} forbidden, ${EXIT_CODES.not_found} not found, ${EXIT_CODES.rate_limited} rate limited,
  ${EXIT_CODES.network} network/5xx/malformed answer, ${EXIT_CODES.rejected} rejected by the service, ${EXIT_CODES.partial} some tenants failed (--profiles),
  ${EXIT_CODES.differs} differences found (diff), ${EXIT_CODES.output} output could not be written, ${SIGNAL_EXIT_CODES.SIGINT} interrupted (Ctrl-C), ${SIGNAL_EXIT_CODES.SIGHUP}/${SIGNAL_EXIT_CODES.SIGTERM} stopped (SIGHUP/SIGTERM)`;

export const EXIT_OK = EXIT_CODES.ok;

export function exitCodeForSignal(signal: StopSignal): number {
  return SIGNAL_EXIT_CODES[signal];
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof Interrupted) return SIGNAL_EXIT_CODES[err.signal];
  if (err instanceof CliError) return EXIT_CODES[err.kind === 'interrupted' ? 'bug' : err.kind];
  // The parser ends `--help` and `--version` by throwing; every usage error it finds comes through our error().
  if (err instanceof ParserExit) return err.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  return EXIT_CODES.bug;
}

/**
 * svcadm's own error codes (README, "Error codes"), for the `code` of the JSON error envelope when the service gave
 * none. Stable: scripts and agents switch on them.
 */
const LOCAL_ERROR_CODES: Readonly<Record<LocalErrorCode, string>> = {
  usage: 'invalid input or options; nothing was sent',
  confirmation_required: 'a destructive command off a terminal (or driven by an agent) without --yes; nothing was sent',
  not_confirmed: 'the question was answered no; nothing was sent',
  config_invalid: "svcadm's own files (profile store, token cache) are unreadable, unsafe or not valid",
  profile_not_found: 'no profile of that name',
  file_unreadable: 'a file given to svcadm (--input, a key, a cursor file) cannot be read or is not what it should be',
  file_unwritable: 'a file svcadm keeps for the user (the cursor file) cannot be written',
  file_unsafe:
    'a file svcadm reads or appends to for the user (cursor, output, dead letters) belongs to another user, or its group or others can write it',
  no_credentials: 'no tenant or credentials configured',
  unauthorized: 'the interface refused the token (401)',
  token_refused: 'the token service refused the client',
  forbidden: 'forbidden (403)',
  stream_limit: 'the plan allows no more concurrent event streams (403)',
  not_found: 'not found (404)',
  rate_limited: 'still rate limited (429) after the retries',
  rejected: 'the service rejected the request (400, 409, 410, 413, other 4xx)',
  server_error: 'the service failed (5xx) after the retries',
  network: 'the connection failed (refused, reset, no name, TLS)',
  timeout: 'no answer within --timeout',
  malformed_answer: 'the answer is not what the interface sends',
  list_changed: 'a list came back with fewer items than it announced (it changed while paging)',
  list_too_long:
    '--all in json, yaml, a table or with --query: the list is past what svcadm holds to print it whole (100,000 items or 24 MB)',
  plain_http: 'TLS was spoken to a server that speaks plain HTTP',
  forward_failed: 'the app at --forward-to did not acknowledge an event within --forward-attempts (exit 7)',
  forward_rejected: 'the app at --forward-to rejected an event, which is not retried (exit 8)',
  cursor_file_failed:
    'the cursor file could not be written while the tail ran (a full disk); the line says where to resume',
  outcome_unknown:
    'a write was sent but no usable answer came back: its outcome is unknown (the correlation id is in the hint)',
  clock_skew: "the token service refused the client about time: this machine's clock may be off",
  wait_too_long: 'the service asked to wait longer than svcadm ever waits (60 s); the hint says when to try again',
  keyring_unavailable:
    "the OS keyring that holds (or is to hold) a profile's secret is locked, did not answer in time, or cannot be reached",
  output_failed: 'stdout or stderr could not be written',
  not_an_emulator: 'the active tenant is not a local emulator (emulator trigger, fault, reset); nothing was sent',
  control_disabled: 'the emulator was started with --no-control: its control API is off',
  tenants_failed: 'a run across several tenants (--profiles) where tenants failed; each is named with its own code',
  cancelled:
    'a tenant of a run across several stopped before it finished (--fail-fast): an entry of its own, never the exit code',
  interrupted: 'stopped by Ctrl-C (SIGINT)',
  terminated: 'stopped by SIGTERM',
  hung_up: 'stopped by SIGHUP',
  internal_error: 'a bug in svcadm',
};

/** Codes for reasons whose own name is not the code; any other reason is its own code. */
const REASON_CODES: Partial<Readonly<Record<ErrorReason, LocalErrorCode>>> = {
  too_many_streams: 'stream_limit',
  audience_refused: 'token_refused',
  tls_unverified: 'network',
  policy_not_found: 'not_found',
  connection_not_found: 'not_found',
  not_database_connection: 'rejected',
  checkpoint_invalid: 'rejected',
};

/** The code of each kind, when neither the error nor its reason says more; a kind added later is its own code. */
const KIND_CODES: Partial<Readonly<Record<ErrorKind, LocalErrorCode>>> = {
  usage: 'usage',
  auth: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  rate_limited: 'rate_limited',
  network: 'network',
  rejected: 'rejected',
  interrupted: 'interrupted',
  output: 'output_failed',
  bug: 'internal_error',
  partial: 'tenants_failed',
};

const SIGNAL_CODES: Readonly<Record<StopSignal, LocalErrorCode>> = {
  SIGINT: 'interrupted',
  SIGTERM: 'terminated',
  SIGHUP: 'hung_up',
};

/** A service's `errorCode` is used as it is only when it looks like one (a proxy's HTML or a hostile text does not). */
const SERVICE_CODE = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * The stable `code` of an error envelope, never null: the error's explicit code (the service's `errorCode`, or one
 * svcadm set), else its reason's, else its kind's (a 5xx: `server_error`). An error class or reason added later gets a
 * code without this table: a reason is its own code, a kind always has one.
 */
export function errorCodeOf(err: unknown): string {
  if (err instanceof Interrupted) return SIGNAL_CODES[err.signal];
  if (err instanceof CliError) {
    if (err.code !== undefined && SERVICE_CODE.test(err.code)) return err.code;
    if (err.reason !== undefined) return REASON_CODES[err.reason] ?? err.reason;
    if (err.kind === 'network' && err.status !== undefined && err.status >= 500) return 'server_error';
    return KIND_CODES[err.kind] ?? err.kind;
  }
  if (err instanceof ParserExit) return 'usage';
  return 'internal_error';
}

export interface ErrorCodeEntry {
  code: string;
  meaning: string;
}

/** svcadm's own error codes and what each means, for `svcadm commands --json` (the service's come as it sends them). */
export function errorCodeTable(): ErrorCodeEntry[] {
  return (Object.keys(LOCAL_ERROR_CODES) as LocalErrorCode[]).map((code) => ({
    code,
    meaning: LOCAL_ERROR_CODES[code],
  }));
}
