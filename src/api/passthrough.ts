import type { IncomingHttpHeaders } from 'node:http';
import { CURSOR_RULE, isCursor } from '../domain/cursor.js';
import { NetworkError, UsageError } from '../errors.js';
import type { ApiClient, Query } from './client.js';
import { apiErrorFrom } from './error-body.js';
import type { HttpMethod, HttpRequest, RetryPolicy } from './http.js';
import { MAX_JSON_DEPTH, malformedAnswer, nestsDeeperThan } from './json-answer.js';
import { writeOverride } from './method-override.js';
import type { PagerPage } from './pagers.js';
import { checkpointPages, OFFSET_CONCURRENCY_DEFAULT, type OffsetAnswer, offsetList } from './paginate.js';
import { displayPath } from './request-path.js';

/** One call of `svcadm api`, ready to send. */
export interface PassthroughRequest {
  method: HttpMethod;
  /** Decoded path segments under `/api/v2`. */
  segments: readonly string[];
  /** Query parameters in order; a repeated name repeats the parameter. */
  query: ReadonlyArray<readonly [string, string]>;
  headers: Readonly<Record<string, string>>;
  body?: string | undefined;
  /** Told when the call leaves and when its answer comes (a write whose outcome may be unknown). */
  onWire?: HttpRequest['onWire'];
}

export interface PassthroughAnswer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined for an empty one (204). */
  body: unknown;
}

function queryOf(
  pairs: ReadonlyArray<readonly [string, string]>,
  replace: Readonly<Record<string, string | undefined>> = {},
) {
  const query: Record<string, string[]> = {};
  for (const [name, value] of pairs) {
    if (name in replace) continue;
    const values = query[name] ?? [];
    values.push(value);
    query[name] = values;
  }
  for (const [name, value] of Object.entries(replace)) if (value !== undefined) query[name] = [value];
  return query satisfies Query;
}

/** The URL of a call, `replace` overriding query parameters (a page, a checkpoint; undefined removes one). */
export function passthroughUrl(
  api: ApiClient,
  req: PassthroughRequest,
  replace: Readonly<Record<string, string | undefined>> = {},
): URL {
  return api.url(req.segments, queryOf(req.query, replace));
}

/**
 * How a call is retried: GET as a read, unless a method override makes it a write (api/method-override.ts);
 * `DELETE /connections/{id}/users`, which the service documents as idempotent, as a read too (the same request as
 * `connections delete-user`); every other method only where it cannot have arrived (429, a refused connection).
 */
function retryPolicyOf(req: PassthroughRequest): RetryPolicy {
  if (req.method === 'GET') return writeOverride(req.headers, req.query) ? 'write' : 'read';
  const [first, , third, ...rest] = req.segments;
  const deletesConnectionUser =
    req.method === 'DELETE' && req.segments.length === 3 && first === 'connections' && third === 'users';
  return deletesConnectionUser && rest.length === 0 ? 'idempotent' : 'write';
}

/** Sends the call with the credentials' token. A non-2xx answer is the error of its status; a 2xx body must be JSON. */
export async function sendPassthrough(
  api: ApiClient,
  req: PassthroughRequest,
  replaceQuery: Readonly<Record<string, string | undefined>> = {},
): Promise<PassthroughAnswer> {
  const res = await api.send(
    {
      method: req.method,
      url: passthroughUrl(api, req, replaceQuery),
      headers: {
        accept: 'application/json',
        ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...req.headers,
      },
      ...(req.body === undefined ? {} : { body: req.body }),
      ...(req.onWire ? { onWire: req.onWire } : {}),
    },
    retryPolicyOf(req),
  );
  if (res.status < 200 || res.status >= 300) throw apiErrorFrom(res, displayPath(req.segments));
  const answer = { status: res.status, statusText: res.statusText, headers: res.headers };
  if (res.body.trim() === '') return { ...answer, body: undefined };
  // Nested like no document of the interface: printing it (JSON, YAML, a table) would overflow the stack.
  if (nestsDeeperThan(res.body, MAX_JSON_DEPTH)) {
    throw malformedAnswer(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  try {
    return { ...answer, body: JSON.parse(res.body) as unknown };
  } catch {
    throw new NetworkError(`malformed response from the service: ${res.body.length} bytes that are not valid JSON`, {
      code: 'malformed_answer',
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list answer: its items, and what it says of the pages (`next`, `start`/`limit`/`total`). */
export interface ListAnswer {
  items: unknown[];
  next: string | undefined;
  totals: { start?: unknown; limit?: unknown; total?: unknown } | undefined;
}

/**
 * Reads an answer as a list: an array, or an object with exactly one array (the items) beside `next` or the totals.
 * With `loose` (the user said it is a list: `--paginate`), any object with exactly one array is one.
 */
export function listAnswer(body: unknown, loose: boolean): ListAnswer | undefined {
  if (Array.isArray(body)) return { items: body, next: undefined, totals: undefined };
  if (!isRecord(body)) return undefined;
  const arrays = Object.values(body).filter(Array.isArray);
  const paged = 'next' in body || typeof body.total === 'number';
  if (arrays.length !== 1 || !(paged || loose)) return undefined;
  const next = body.next;
  if (next !== undefined && next !== null && typeof next !== 'string') {
    throw new NetworkError('malformed response from the service: next is not a string', { code: 'malformed_answer' });
  }
  return {
    items: arrays[0] as unknown[],
    next: typeof next === 'string' && next !== '' ? next : undefined,
    totals: typeof body.total === 'number' ? body : undefined,
  };
}

/** Whether a list answer says more pages follow (for the table view's hint). */
export function hasMorePages(list: ListAnswer): boolean {
  if (list.next !== undefined) return true;
  const { start, total } = list.totals ?? {};
  return typeof start === 'number' && typeof total === 'number' && start + list.items.length < total;
}

/** Items are told apart by their `id`, anything without one by its whole content. */
function itemKey(item: unknown): string {
  return isRecord(item) && typeof item.id === 'string' ? `id\u0000${item.id}` : (JSON.stringify(item) ?? '');
}

const CHECKPOINT_PARAMS = ['from', 'take'];
const OFFSET_PARAMS = ['page', 'per_page', 'include_totals'];
/** Offset lists are asked at the largest page the interface serves, unless per_page says otherwise (as --all). */
export const PAGINATE_PER_PAGE = 100;

/** What `--paginate` found: every page of a list, or an answer that is not a list (printed as it is). */
export type Pagination =
  | { kind: 'pages'; pages: AsyncGenerator<PagerPage<unknown>> }
  | { kind: 'single'; answer: PassthroughAnswer };

/**
 * `--paginate`: a `from` or `take` parameter makes it a checkpoint list (`next` → `from`), `page`, `per_page` or
 * `include_totals` an offset list (planned from the `total` and `limit` the first page returns, `offsetList`). With
 * neither, the first answer tells: a `next` continues as a checkpoint list; an offset list is asked again from page 0
 * with `include_totals`, to learn its total and page size.
 */
export async function paginate(api: ApiClient, req: PassthroughRequest): Promise<Pagination> {
  const names = new Set(req.query.map(([name]) => name));
  if (names.has('page')) {
    throw new UsageError('--paginate cannot be combined with a page parameter', '--paginate starts at page 0');
  }
  if (CHECKPOINT_PARAMS.some((n) => names.has(n))) return { kind: 'pages', pages: checkpointList(api, req) };
  if (OFFSET_PARAMS.some((n) => names.has(n))) return { kind: 'pages', pages: offsetPages(api, req) };
  const first = await sendPassthrough(api, req);
  const list = listAnswer(first.body, true);
  if (list === undefined) return { kind: 'single', answer: first };
  if (list.next !== undefined) return { kind: 'pages', pages: checkpointList(api, req, first) };
  if (Array.isArray(first.body) && first.body.length > 0) return { kind: 'pages', pages: offsetPages(api, req) };
  return { kind: 'pages', pages: onePage(list) };
}

async function* onePage(list: ListAnswer): AsyncGenerator<PagerPage<unknown>> {
  yield { items: list.items, fetched: list.items.length };
}

/** A page of a list being followed: its `next` is sent back, so it must be a cursor. */
function pageList(body: unknown): ListAnswer {
  const list = listAnswer(body, true);
  if (list === undefined) {
    throw new NetworkError('cannot paginate: the answer is not a list (an array, or an object with one array)');
  }
  if (list.next !== undefined && !isCursor(list.next)) {
    throw new NetworkError(`malformed response from the service: a next checkpoint that is not ${CURSOR_RULE}`, {
      code: 'malformed_answer',
    });
  }
  return list;
}

/** Follows `next` as `from`, the first page possibly already fetched. */
async function* checkpointList(
  api: ApiClient,
  req: PassthroughRequest,
  first?: PassthroughAnswer,
): AsyncGenerator<PagerPage<unknown>> {
  let pending = first;
  let fetched = 0;
  const pages = checkpointPages(
    async (from) => {
      const answer = pending ?? (await sendPassthrough(api, req, from === undefined ? {} : { from }));
      pending = undefined;
      const list = pageList(answer.body);
      return { items: list.items, headers: answer.headers, next: list.next };
    },
    { key: itemKey },
  );
  for await (const page of pages) {
    fetched += page.received;
    yield { items: page.items, fetched };
  }
}

function perPageOf(req: PassthroughRequest): number {
  const given = req.query.find(([name]) => name === 'per_page')?.[1];
  if (given === undefined) return PAGINATE_PER_PAGE;
  if (!/^[1-9]\d{0,5}$/.test(given)) throw new UsageError(`per_page must be a whole number above 0 with --paginate`);
  return Number(given);
}

/** Every page of an offset list (`offsetList`: totals, the served page size, a shortfall reported). */
async function* offsetPages(api: ApiClient, req: PassthroughRequest): AsyncGenerator<PagerPage<unknown>> {
  const pages = offsetList<unknown>({
    fetch: async (page, perPage, withTotals): Promise<OffsetAnswer<unknown>> => {
      const answer = await sendPassthrough(api, req, {
        page: String(page),
        per_page: String(perPage),
        include_totals: withTotals ? 'true' : undefined,
      });
      const list = pageList(answer.body);
      return { items: list.items, headers: answer.headers, totals: list.totals };
    },
    perPage: perPageOf(req),
    concurrency: OFFSET_CONCURRENCY_DEFAULT,
    key: itemKey,
    what: 'items',
  });
  for await (const page of pages) yield page;
}
