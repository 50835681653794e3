/**
 * The words the service's paths are made of (`users`, `permissions`, …): the only segments a template keeps. Those
 * of the interface's operations (interface-paths.ts, held to this list by test/traces/route-template.test.ts), the
 * token's path and the event stream's.
 */
export const ROUTE_WORDS: ReadonlySet<string> = new Set([
  'rate-limit-policies',
  'connections',
  'users-by-email',
  'connections-directory-provisionings',
  'users',
  'permissions',
  'oauth',
  'token',
  'events',
]);
/** The API base's own segments (`/api/v2`). */
const BASE_SEGMENT = /^(?:api|v\d{1,3})$/;

/**
 * **The** `url.template` of a request to the service, for a span: its path with every segment that is not a word of
 * the interface (or of the API base) replaced by `{id}`: `/api/v2/users/{id}/permissions`, never the id. So for an
 * `svcadm api` path too: a segment the interface does not name is an argument's value, never recorded
 * (docs/decisions/2026-11-28-traces.md). The query is left out.
 */
export function routeTemplate(url: URL): string {
  return url.pathname
    .split('/')
    .map((segment, i) =>
      i === 0 || segment === '' || ROUTE_WORDS.has(segment) || BASE_SEGMENT.test(segment) ? segment : '{id}',
    )
    .join('/');
}
