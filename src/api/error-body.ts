import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, AuthError, type HeaderMap } from '../errors.js';
import { neutralize } from '../render/sanitize.js';

export interface ParsedErrorBody {
  message: string | undefined;
  code: string | undefined;
}

const MAX_MESSAGE = 300;

/** Reads the service's error shapes leniently: `{message, errorCode}`, OAuth's `{error, error_description}`, or text. */
export function parseErrorBody(body: string): ParsedErrorBody {
  const text = body.trim();
  let message: string | undefined;
  let code: string | undefined;
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json === 'object' && json !== null) {
      const record = json as Record<string, unknown>;
      const nested =
        typeof record.error === 'object' && record.error !== null
          ? (record.error as Record<string, unknown>)
          : undefined;
      message = firstString(record.message, record.error_description, nested?.message, record.error);
      code = firstString(
        record.errorCode,
        nested?.code,
        typeof record.error === 'string' && record.error_description ? record.error : undefined,
      );
    }
  } catch {
    message = text === '' || text.startsWith('<') ? undefined : text;
  }
  return {
    message: message === undefined ? undefined : clip(neutralize(message)),
    code: code === undefined ? undefined : clip(neutralize(code)),
  };
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return undefined;
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

const SCOPE_PATTERN = /expected (?:any of|all of)?:?\s*([\w:, ]+)/i;

/** The one place an HTTP error answer becomes an error with a message, a hint and an exit code. */
export function apiErrorFrom(
  res: { status: number; statusText: string; headers: IncomingHttpHeaders; body: string; retries?: number },
  what: string,
): ApiError {
  const { message, code } = parseErrorBody(res.body);
  const fallback = `${res.status} ${res.statusText || 'error'}`.trim();
  const text = message ?? fallback;
  const headers = res.headers as HeaderMap;
  const retries = res.retries
    ? ` (still ${res.status} after ${res.retries} ${res.retries === 1 ? 'retry' : 'retries'})`
    : '';
  switch (true) {
    case res.status === 401:
      return new ApiError(401, `authentication failed: ${text}`, {
        code,
        headers,
        body: res.body,
        hint: 'check the client credentials; `svcadm auth status` shows what is in use',
      });
    case res.status === 403: {
      const scope = SCOPE_PATTERN.exec(text)?.[1]?.trim();
      return new ApiError(403, `forbidden: ${text}`, {
        code,
        headers,
        body: res.body,
        ...(scope ? { hint: `grant the scope ${scope} to the client in the tenant's settings` } : {}),
      });
    }
    case res.status === 404:
      return new ApiError(404, `${what} not found: ${text}`, { code, headers, body: res.body });
    case res.status === 429:
      return new ApiError(429, `rate limited: ${text}${retries}`, {
        code,
        headers,
        body: res.body,
        hint: 'wait and run again, or raise --max-retries',
      });
    case res.status >= 500:
      return new ApiError(res.status, `the service failed: ${text}${retries}`, { code, headers, body: res.body });
    default:
      return new ApiError(res.status, `the service rejected the request: ${text}`, { code, headers, body: res.body });
  }
}

/** Errors of the token service: refused credentials are an authentication failure whatever the status. */
export function tokenErrorFrom(res: {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  retries?: number;
}): Error {
  if (res.status >= 400 && res.status < 500 && res.status !== 429) {
    const { message, code } = parseErrorBody(res.body);
    return new AuthError(`token request refused: ${message ?? `${res.status} ${res.statusText}`}`, {
      status: res.status,
      ...(code ? { code } : {}),
      hint: 'check the client id, secret and audience (`svcadm profiles show`)',
    });
  }
  return apiErrorFrom(res, 'token service');
}
