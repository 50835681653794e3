/** What went wrong, in the terms of the exit codes: every failure svcadm reports has one of these kinds. */
export type ErrorKind =
  | 'usage'
  | 'auth'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'network'
  | 'rejected'
  | 'interrupted'
  | 'output'
  | 'bug'
  /** A run across several tenants (`--profiles`) where some failed and others did not. */
  | 'partial';

/** The signals that stop a command cleanly (cli.md); the exit code says which one did. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

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
  ${EXIT_CODES.output} output could not be written, ${SIGNAL_EXIT_CODES.SIGINT} interrupted (Ctrl-C), ${SIGNAL_EXIT_CODES.SIGHUP}/${SIGNAL_EXIT_CODES.SIGTERM} stopped (SIGHUP/SIGTERM)`;

export const EXIT_OK = EXIT_CODES.ok;

/**
 * What a failure means beyond its kind, for the CLI to say what to do about it (`cli/hints.ts`): the API layer names
 * the situation, never a CLI command.
 */
export type ErrorReason =
  | 'unauthorized'
  | 'token_refused'
  | 'rate_limited'
  | 'timeout'
  | 'too_many_streams'
  /** The tenant has no event stream (the Events feature is not enabled: 404 on /events). */
  | 'events_unavailable'
  | 'cursor_expired'
  | 'invalid_cursor'
  /** The app at `--forward-to` did not acknowledge an event within its attempts (or cannot be reached for good). */
  | 'forward_failed'
  /** The app at `--forward-to` rejected an event (a 4xx other than 408, 425, 429): it is not retried. */
  | 'forward_rejected'
  /** TLS was spoken to a port that answers in plain HTTP (`subject`: the same origin over http). */
  | 'plain_http'
  /** The cursor file could not be written once the tail had printed events (a full disk): resume from the line. */
  | 'cursor_file_failed'
  /** A file of svcadm's (the profile store) holds what svcadm cannot use: the message names the file and field. */
  | 'config_invalid'
  /** A write reached the service but no usable answer came back (`subject`: its correlation id). */
  | 'outcome_unknown'
  /** The token service refused the client about time: the clock may be off (`subject`: the skew measured, if any). */
  | 'clock_skew'
  /** The service asked to wait longer than svcadm ever waits (`subject`: when to try again, ISO 8601). */
  | 'wait_too_long'
  /**
   * The OS keyring that holds (or is to hold) a profile's secret is locked, did not answer in time, or cannot be
   * reached (`subject`: the file a new secret could go to instead, when storing one).
   */
  | 'keyring_unavailable'
  /** The token service refused the audience asked for (`subject`: that audience). */
  | 'audience_refused'
  /** The server's certificate is not signed by a CA this machine trusts (a private or corporate CA). */
  | 'tls_unverified'
  /** No rate limit policy has the id given. */
  | 'policy_not_found'
  /** No connection has the id given. */
  | 'connection_not_found'
  /** The connection is not a database connection (it holds no users to delete). */
  | 'not_database_connection'
  /** A list's checkpoint (`from`) was refused: expired (they last 24 hours), or from another list. */
  | 'checkpoint_invalid';

/** How to start again a command that failed on its cursor, set by that command for its hint (`cli/hints.ts`). */
export interface Restart {
  /** The command's words that a restart keeps (`--cursor-file f`, `--type …`), after the command's own name. */
  words: readonly string[];
  /** Where the cursor came from, in words ("the cursor file f", "--from"). */
  cursorFrom: string;
}

export interface ErrorDetails {
  hint?: string | undefined;
  reason?: ErrorReason | undefined;
  /** The HTTP status the service answered, when there was one. */
  status?: number | undefined;
  /** The service's error code (`errorCode`), when it sent one; else one of svcadm's own (`LocalErrorCode`). */
  code?: string | undefined;
  /** What the error is about (an origin, an id), for the CLI to name in its advice. */
  subject?: string | undefined;
}

/** Every failure svcadm reports is one of these; `exitCodeFor` is the single place they become exit codes. */
export class CliError extends Error {
  readonly kind: ErrorKind;
  /** A next step for the user; commands may add to it (`addHint`), e.g. a correlation id or a CLI command. */
  hint: string | undefined;
  /** How to start the failed command again, when it knows (`events tail` on a refused cursor). */
  restart: Restart | undefined;
  readonly reason: ErrorReason | undefined;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly subject: string | undefined;

  constructor(kind: ErrorKind, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = new.target.name;
    this.kind = kind;
    this.hint = details.hint;
    this.reason = details.reason;
    this.status = details.status;
    this.code = details.code;
    this.subject = details.subject;
  }

  /** Appends a next step to the hint; the message, kind and code stay the service's. */
  addHint(hint: string): this {
    this.hint = this.hint ? `${this.hint}; ${hint}` : hint;
    return this;
  }
}

/** Invalid input: nothing was sent to the service. `code` says what kind of input, when more than `usage` helps. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string, code?: LocalErrorCode) {
    super('usage', message, { hint, code });
  }
}

/** No credentials, a refused token request, or a 401 that survived a token refresh. */
export class AuthError extends CliError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('auth', message, details);
  }
}

export type HeaderMap = Record<string, string | string[] | undefined>;

/** The kind of an HTTP error status (cli.md, "Exit codes"). */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'rejected';
  return 'network';
}

/** An HTTP error answer from the interface. Its kind follows from the status. */
export class ApiError extends CliError {
  readonly headers: HeaderMap;
  readonly body: string;

  constructor(status: number, message: string, details: ErrorDetails & { headers?: HeaderMap; body?: string }) {
    super(kindForStatus(status), message, { ...details, status });
    this.headers = details.headers ?? {};
    this.body = details.body ?? '';
  }
}

/** Connection failures, timeouts and answers that could not be understood. */
export class NetworkError extends CliError {
  /** True when trying again cannot help (a name that does not resolve, a TLS failure, an oversized answer). */
  readonly permanent: boolean;

  constructor(
    message: string,
    details: Pick<ErrorDetails, 'hint' | 'reason' | 'subject'> & { permanent?: boolean; code?: LocalErrorCode } = {},
  ) {
    super('network', message, details);
    this.permanent = details.permanent ?? false;
  }
}

/** How each stop signal is named: SIGTERM and SIGHUP do not interrupt, they terminate and hang up. */
export const STOP_WORDS: Readonly<Record<StopSignal, string>> = {
  SIGINT: 'interrupted',
  SIGTERM: 'terminated',
  SIGHUP: 'hung up',
};

/** The command was stopped by a signal; the exit code names the signal. */
export class Interrupted extends CliError {
  constructor(
    readonly signal: StopSignal = 'SIGINT',
    /** True when the command already told the user how it stopped (a tail's count and resume line). */
    readonly reported = false,
    /** What was cut off, when it matters (a write whose outcome is unknown). */
    message = STOP_WORDS[signal],
    details: Pick<ErrorDetails, 'reason' | 'subject'> = {},
  ) {
    super('interrupted', message, details);
  }
}

/** The Interrupted a stop signal carries as its abort reason (a plain `abort()` counts as Ctrl-C). */
export function interruption(signal: AbortSignal, reported = false): Interrupted {
  const stop = signal.reason instanceof Interrupted ? signal.reason.signal : 'SIGINT';
  return new Interrupted(stop, reported);
}

/**
 * The command line's parser ended the run itself: help or the version shown (exit code 0), or a line it refused
 * (any other code). `cli/command.ts` throws it in place of commander's own error: this module knows no commander.
 */
export class ParserExit extends Error {
  constructor(
    readonly exitCode: number,
    /** The parser's own name for the ending (`commander.helpDisplayed`, `commander.version`). */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParserExit';
  }
}

/**
 * Tenants of a run across several (`--profiles`) failed, each reported already: `kind` is theirs when they all failed
 * alike, else `partial` (exit 9). The message names each failed tenant and its exit code.
 */
export class TenantsFailed extends CliError {
  constructor(kind: Exclude<ErrorKind, 'interrupted'>, message: string) {
    super(kind, message, { code: 'tenants_failed' });
  }
}

/** Writing stdout or stderr failed: the environment's fault, never "a bug". */
export class OutputError extends CliError {
  constructor(message: string) {
    super('output', message);
  }
}

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

/** An ending that prints nothing more: help or version shown, or a stop the command has reported itself. */
export function endsQuietly(err: unknown): boolean {
  if (err instanceof Interrupted) return err.reported;
  return err instanceof ParserExit && err.exitCode === 0;
}

/**
 * svcadm's own error codes (README, "Error codes"), for the `code` of the JSON error envelope when the service gave
 * none. Stable: scripts and agents switch on them.
 */
const LOCAL_ERROR_CODES = {
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
  control_disabled: 'the emulator was started without --control: its control API is off',
  tenants_failed: 'a run across several tenants (--profiles) where tenants failed; each is named with its own code',
  cancelled:
    'a tenant of a run across several stopped before it finished (--fail-fast): an entry of its own, never the exit code',
  interrupted: 'stopped by Ctrl-C (SIGINT)',
  terminated: 'stopped by SIGTERM',
  hung_up: 'stopped by SIGHUP',
  internal_error: 'a bug in svcadm',
} as const;

export type LocalErrorCode = keyof typeof LOCAL_ERROR_CODES;

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
