import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, AuthError, type ErrorReason, type HeaderMap } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import type { RefusedWait } from './http-answer.js';
import { waitText } from './retry.js';

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

export interface ErrorAnswer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  retries?: number;
  /** The wait this answer asked for and svcadm would not take (`HttpClient`). */
  waitRefused?: RefusedWait;
}

/** What to add to an answer's message when it asked for a wait svcadm would not take, and when to try again. */
function refusedWait(res: ErrorAnswer, words: (wait: string) => string) {
  if (!res.waitRefused) return undefined;
  const at = new Date(res.waitRefused.until).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { text: words(waitText(res.waitRefused.waitMs)), reason: 'wait_too_long' as const, subject: at };
}

/** What an endpoint knows about one of its error answers that the generic reading does not. */
export interface EndpointMeaning {
  message: string;
  reason?: ErrorReason;
}

/** The service's text of an error answer: its message, else the status line. */
function answerText(res: ErrorAnswer, parsed: ParsedErrorBody): string {
  return parsed.message ?? `${res.status} ${res.statusText || 'error'}`.trim();
}

/**
 * The one place an HTTP error answer becomes an error with a message and a kind. `meaning` lets an endpoint word an
 * answer it knows better (the event stream's 410), from the service's own text; `failed` opens the message of a 5xx.
 */
export function apiErrorFrom(
  res: ErrorAnswer,
  what: string,
  meaning?: (answer: { status: number; code: string | undefined; text: string }) => EndpointMeaning | undefined,
  failed = 'the service failed',
): ApiError {
  const parsed = parseErrorBody(res.body);
  const { code } = parsed;
  const text = answerText(res, parsed);
  const base = { code, headers: res.headers as HeaderMap, body: res.body };
  const special = meaning?.({ status: res.status, code, text });
  if (special) return new ApiError(res.status, special.message, { ...base, reason: special.reason });
  const retries = res.retries
    ? ` (still ${res.status} after ${res.retries} ${res.retries === 1 ? 'retry' : 'retries'})`
    : '';
  const tooLong = refusedWait(res, (wait) => `; the service asks to wait ${wait}`);
  if (tooLong && (res.status === 429 || res.status >= 500)) {
    const start = res.status === 429 ? 'rate limited' : failed;
    return new ApiError(res.status, `${start}: ${text}${tooLong.text}`, {
      ...base,
      reason: tooLong.reason,
      subject: tooLong.subject,
    });
  }
  switch (true) {
    case res.status === 401:
      return new ApiError(401, `authentication failed: ${text}`, { ...base, reason: 'unauthorized' });
    case res.status === 403: {
      const scope = SCOPE_PATTERN.exec(text)?.[1]?.trim();
      return new ApiError(403, `forbidden: ${text}`, {
        ...base,
        ...(scope ? { hint: `grant the scope ${scope} to the client in the tenant's settings` } : {}),
      });
    }
    case res.status === 404:
      return new ApiError(404, `${what} not found: ${text}`, base);
    case res.status === 429:
      return new ApiError(429, `rate limited: ${text}${retries}`, { ...base, reason: 'rate_limited' });
    case res.status >= 500:
      return new ApiError(res.status, `${failed}: ${text}${retries}`, base);
    default:
      return new ApiError(res.status, `the service rejected the request: ${text}`, {
        ...base,
        ...(res.status === 400 && (code === 'invalid_paging' || /pagination cursor|checkpoint/i.test(text))
          ? { reason: 'checkpoint_invalid' as const }
          : {}),
      });
  }
}

/** How the vendor's token service refuses an audience it does not serve (a custom domain's URL, a typo). */
const AUDIENCE_REFUSED =
  /service not enabled within domain|(invalid|unknown|wrong) audience|audience is (not|invalid)/i;

/**
 * Errors of the token service: refused credentials are an authentication failure whatever the status; a refusal
 * of the `audience` asked for is said to be about it; a failure (5xx) names the token request and `tokenUrl`, as the
 * interface was never reached.
 */
export function tokenErrorFrom(res: ErrorAnswer, tokenUrl: string, audience?: string): Error {
  if (res.status >= 400 && res.status < 500 && res.status !== 429) {
    const parsed = parseErrorBody(res.body);
    const text = answerText(res, parsed);
    const aboutAudience = audience !== undefined && AUDIENCE_REFUSED.test(text);
    return new AuthError(`token request refused: ${text}`, {
      status: res.status,
      code: parsed.code,
      reason: aboutAudience ? 'audience_refused' : 'token_refused',
      ...(aboutAudience ? { subject: audience } : {}),
    });
  }
  const tooLong = refusedWait(res, (wait) => `; it resets in ${wait}`);
  if (res.status === 429 && tooLong) {
    const parsed = parseErrorBody(res.body);
    return new ApiError(429, `the token service's quota is used up: ${answerText(res, parsed)}${tooLong.text}`, {
      code: parsed.code,
      headers: res.headers as HeaderMap,
      body: res.body,
      reason: tooLong.reason,
      subject: tooLong.subject,
    });
  }
  return apiErrorFrom(res, 'token service', undefined, `the token request to ${neutralize(tokenUrl)} failed`);
}
