/** Every failure svcadm reports is one of these; `exitCodeFor` is the single place they become exit codes. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  readonly status: number | undefined;
  readonly code: string | undefined;

  constructor(message: string, exitCode: number, opts: { hint?: string; status?: number; code?: string } = {}) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.status = opts.status;
    this.code = opts.code;
  }
}

/** Invalid input: nothing was sent to the service. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, 2, hint === undefined ? {} : { hint });
  }
}

/** No credentials, a refused token request, or a 401 that survived a token refresh. */
export class AuthError extends CliError {
  constructor(message: string, opts: { hint?: string; status?: number; code?: string } = {}) {
    super(message, 3, opts);
  }
}

export type HeaderMap = Record<string, string | string[] | undefined>;

/** An HTTP error answer from the interface. The exit code follows from the status. */
export class ApiError extends CliError {
  readonly headers: HeaderMap;
  readonly body: string;

  constructor(
    status: number,
    message: string,
    opts: { code?: string; headers?: HeaderMap; body?: string; hint?: string },
  ) {
    super(message, exitCodeForStatus(status), { status, ...opts });
    this.headers = opts.headers ?? {};
    this.body = opts.body ?? '';
  }
}

/** Connection failures, timeouts and answers that could not be understood. */
export class NetworkError extends CliError {
  constructor(
    message: string,
    hint?: string,
    /** True when trying again cannot help (a name that does not resolve, a TLS failure). */
    readonly permanent = false,
  ) {
    super(message, 7, hint === undefined ? {} : { hint });
  }
}

export class Interrupted extends CliError {
  constructor(message = 'interrupted') {
    super(message, 130);
  }
}

export function exitCodeForStatus(status: number): number {
  if (status === 401) return 3;
  if (status === 403) return 4;
  if (status === 404) return 5;
  if (status === 429) return 6;
  if (status >= 500) return 7;
  if (status >= 400) return 8;
  return 7;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  return 1;
}
