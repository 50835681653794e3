import type { IncomingHttpHeaders } from 'node:http';
import { AuthError, UsageError } from '../errors.js';
import type { TokenSource } from './auth.js';
import { apiErrorFrom } from './error-body.js';
import type { HttpClient, HttpRequest, RetryPolicy, StreamResponse } from './http.js';
import type { HttpResponse } from './http-answer.js';
import { parseJsonAnswer } from './json-answer.js';

export type QueryValue = string | number | boolean | readonly string[] | undefined;
export type Query = Record<string, QueryValue>;

/**
 * Percent-encodes every path segment and query value (`bob+x@example.com` arrives intact). A `.` or `..` segment, or
 * an empty one inside the path, is refused before anything is sent: encoded as `%2E%2E`, a server may still read it
 * as a step up the path (`DELETE /connections/../users` is `DELETE /users`). An empty last segment is a trailing
 * slash (`svcadm api /roles/`).
 */
export function buildUrl(apiBase: string, segments: readonly string[], query: Query = {}): URL {
  const last = segments.length - 1;
  const path = segments.map((s, i) => encodeURIComponent(i === last && s === '' ? s : checkedSegment(s))).join('/');
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [String(value)];
    for (const v of values) pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
  }
  return new URL(`${apiBase}/${path}${pairs.length ? `?${pairs.join('&')}` : ''}`);
}

function checkedSegment(segment: string): string {
  if (segment === '') throw new UsageError('an id must not be empty');
  if (segment === '.' || segment === '..') {
    throw new UsageError(
      `'${segment}' cannot be used as an id: servers read '.' and '..' in a path as steps, not names`,
    );
  }
  return segment;
}

export interface JsonResult<T> {
  data: T;
  headers: IncomingHttpHeaders;
}

/** The interface with a bearer token: a 401 refreshes the token once and tries again. */
export class ApiClient {
  constructor(
    readonly http: HttpClient,
    readonly tokens: TokenSource,
    readonly apiBase: string,
  ) {}

  url(segments: readonly string[], query?: Query): URL {
    return buildUrl(this.apiBase, segments, query);
  }

  /** GET a JSON document; `what` names the resource in a 404 message. */
  async getJson<T>(url: URL, what: string): Promise<JsonResult<T>> {
    const res = await this.send({ method: 'GET', url, headers: { accept: 'application/json' } }, 'read');
    if (res.status < 200 || res.status >= 300) throw apiErrorFrom(res, what);
    return { data: parseJsonAnswer(res.body) as T, headers: res.headers };
  }

  /** Sends a request with the token and returns the answer whatever its status (except a 401 that stays). */
  async send(req: Omit<HttpRequest, 'retry'>, retry: RetryPolicy): Promise<HttpResponse> {
    return this.#authorized(async (authorization) =>
      this.http.request({ ...req, headers: { ...req.headers, authorization }, retry }),
    );
  }

  /**
   * Opens a streaming GET; non-2xx answers other than a lasting 401 come back with their body. A 401 fetches a new
   * token only when `mayRefresh()` allows (the event stream rate-limits refreshes); otherwise it comes back too.
   */
  async open(
    url: URL,
    headers: Record<string, string>,
    signal?: AbortSignal,
    mayRefresh: () => boolean = () => true,
  ): Promise<StreamResponse> {
    return this.#authorized(
      (authorization) =>
        this.http.open({ method: 'GET', url, headers: { ...headers, authorization }, retry: 'read' }, signal),
      mayRefresh,
      signal,
    );
  }

  async #authorized<
    R extends {
      status: number;
      statusText: string;
      headers: IncomingHttpHeaders;
      body?: string;
      stream?: { destroy(): void };
    },
  >(
    attempt: (authorization: string) => Promise<R>,
    mayRefresh: () => boolean = () => true,
    signal?: AbortSignal,
  ): Promise<R> {
    let token = (await this.tokens.current(signal)).accessToken;
    let res = await attempt(`Bearer ${token}`);
    if (res.status === 401 && this.tokens.refreshable) {
      if (!mayRefresh()) return res;
      res.stream?.destroy();
      await this.tokens.invalidate(token);
      token = (await this.tokens.current(signal)).accessToken;
      res = await attempt(`Bearer ${token}`);
    }
    if (res.status === 401) {
      const err = apiErrorFrom({ ...res, body: res.body ?? '' }, 'resource');
      throw new AuthError(err.message, { status: 401, code: err.code, reason: err.reason });
    }
    return res;
  }
}
