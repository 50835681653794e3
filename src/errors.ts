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
  | 'partial'
  /** `svcadm diff` found differences: not a failure (diff(1)'s 1, which means a bug here). */
  | 'differs';

/** The signals that stop a command cleanly (cli.md); the exit code says which one did. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

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

/**
 * Every failure svcadm reports is one of these; `exitCodeFor` (error-codes.ts) is the single place they become exit
 * codes.
 */
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

/**
 * svcadm's own error codes (README, "Error codes"): the `code` an error of svcadm's may carry. What each means, and
 * the rule that gives every error its code, are in error-codes.ts (the compiler holds its table to these names).
 */
export type LocalErrorCode =
  | 'usage'
  | 'confirmation_required'
  | 'not_confirmed'
  | 'config_invalid'
  | 'profile_not_found'
  | 'file_unreadable'
  | 'file_unwritable'
  | 'file_unsafe'
  | 'no_credentials'
  | 'unauthorized'
  | 'token_refused'
  | 'forbidden'
  | 'stream_limit'
  | 'not_found'
  | 'rate_limited'
  | 'rejected'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'malformed_answer'
  | 'list_changed'
  | 'list_too_long'
  | 'plain_http'
  | 'forward_failed'
  | 'forward_rejected'
  | 'cursor_file_failed'
  | 'outcome_unknown'
  | 'clock_skew'
  | 'wait_too_long'
  | 'keyring_unavailable'
  | 'output_failed'
  | 'not_an_emulator'
  | 'control_disabled'
  | 'tenants_failed'
  | 'cancelled'
  | 'interrupted'
  | 'terminated'
  | 'hung_up'
  | 'internal_error';

/** An ending that prints nothing more: help or version shown, or a stop the command has reported itself. */
export function endsQuietly(err: unknown): boolean {
  if (err instanceof Interrupted) return err.reported;
  if (err instanceof DifferencesFound) return true;
  return err instanceof ParserExit && err.exitCode === 0;
}

/** `svcadm diff` printed differences: exit 10, and nothing more is said (cli.md, "Compare tenants"). */
export class DifferencesFound extends CliError {
  constructor() {
    super('differs', 'the tenants differ');
  }
}
