import { DEFAULT_TAKE } from '../domain/pages.js';
import { HttpError, sendJson } from './http-util.js';
import { offsetPageBody, PAGE_SIZE_MAX, parseOffsetPage, servedPageSize } from './pagination.js';
import { booleanParam, integerParam, queryError, rejectUnknownParams, single } from './query.js';
import { type InterfaceRequest, scopesOf } from './request.js';
import { ENDPOINT_SCOPES } from './scopes.js';
import type { TenantConnection } from './seed-data.js';
import type { EmulatorState } from './state.js';
import { requireScope } from './tokens.js';

/** The lists that give the ids the five operations need (api-notes: Lists that give the ids). */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The 403 of a tenant whose plan lacks a feature (the vendor's deploy tool reads 403 as "not enabled"). */
export function featureNotEnabled(feature: string): HttpError {
  return HttpError.service(403, `The ${feature} feature is not enabled for this tenant.`, 'feature_not_enabled');
}

/** `take` (1..100, default 50, served at most the page cap) and `from` (a checkpoint of this list) -> a slice. */
function checkpointSlice<T>(
  state: EmulatorState,
  call: InterfaceRequest,
  list: string,
  items: readonly T[],
): { page: T[]; next?: string } {
  const asked = integerParam(call.query, 'take', { min: 1, max: PAGE_SIZE_MAX }) ?? DEFAULT_TAKE;
  const take = servedPageSize(asked, state.settings.pageCap);
  const from = single(call.query, 'from');
  const start = from === undefined || from === '' ? 0 : state.checkpoints.decode(list, from);
  const page = items.slice(start, start + take);
  return start + take < items.length ? { page, next: state.checkpoints.encode(list, start + take) } : { page };
}

/** `GET /rate-limit-policies`: checkpoint pages, filtered by `resource`, `consumer`, `consumer_selector`. */
export function serveRateLimitPolicies(state: EmulatorState, call: InterfaceRequest): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.listRateLimitPolicies);
  if (!state.features.rateLimitPolicies) throw featureNotEnabled('rate limit policies');
  rejectUnknownParams(call.query, ['take', 'from', 'resource', 'consumer', 'consumer_selector']);
  const filters = (['resource', 'consumer', 'consumer_selector'] as const).map(
    (name) => [name, single(call.query, name)] as const,
  );
  const matching = [...state.data.policies.values()].filter((policy) =>
    filters.every(([name, value]) => value === undefined || policy[name] === value),
  );
  const { page, next } = checkpointSlice(state, call, 'rate-limit-policies', matching);
  sendJson(call.res, 200, { rate_limit_policies: page, ...(next ? { next } : {}) }, call.headers);
}

/** A connection as `GET /connections` lists it. */
function connectionBody(c: TenantConnection): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    display_name: c.displayName,
    strategy: c.strategy,
    realms: [c.name],
    is_domain_connection: false,
    enabled_clients: [],
    options: {},
  };
}

function project(body: Record<string, unknown>, fields: string[] | undefined, include: boolean) {
  if (fields === undefined) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => fields.includes(key) === include));
}

/**
 * `GET /connections`: with `take` or `from` checkpoint pages `{connections, next}`; otherwise the older offset form
 * (a bare array, or with `include_totals` the object with `total`). `strategy` repeats; `fields` picks keys.
 */
export function serveConnections(state: EmulatorState, call: InterfaceRequest): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.listConnections);
  rejectUnknownParams(call.query, [
    'take',
    'from',
    'strategy',
    'name',
    'fields',
    'include_fields',
    'page',
    'per_page',
    'include_totals',
  ]);
  const strategies = call.query.getAll('strategy');
  const name = single(call.query, 'name');
  const fieldsText = single(call.query, 'fields');
  const fields = fieldsText === undefined || fieldsText === '' ? undefined : fieldsText.split(',');
  const include = booleanParam(call.query, 'include_fields') ?? true;
  const matching = [...state.data.connections.values()]
    .filter(
      (c) => (strategies.length === 0 || strategies.includes(c.strategy)) && (name === undefined || c.name === name),
    )
    .map((c) => project(connectionBody(c), fields, include));
  const checkpoint = call.query.has('take') || call.query.has('from');
  // The vendor's Node SDK sends include_totals with take; the checkpoint form answers without totals.
  if (checkpoint && (call.query.has('page') || call.query.has('per_page'))) {
    throw queryError('take and from cannot be combined with page or per_page');
  }
  if (checkpoint) booleanParam(call.query, 'include_totals');
  if (!checkpoint) {
    const page = parseOffsetPage(call.query, state.settings.pageCap);
    sendJson(call.res, 200, offsetPageBody(matching, page, 'connections'), call.headers);
    return;
  }
  const { page, next } = checkpointSlice(state, call, 'connections', matching);
  sendJson(call.res, 200, { connections: page, ...(next ? { next } : {}) }, call.headers);
}

/** `GET /users-by-email?email=`: every user with that address, whatever its connection; `[]` when none. */
export function serveUsersByEmail(state: EmulatorState, call: InterfaceRequest): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.usersByEmail);
  rejectUnknownParams(call.query, ['email', 'fields', 'include_fields']);
  const email = single(call.query, 'email');
  if (email === undefined) throw queryError('Missing required property: email');
  if (email.length > 254 || !EMAIL.test(email)) {
    throw queryError(`Object didn't pass validation for format email: ${email}`, 'email');
  }
  const key = email.toLowerCase();
  const users: unknown[] = [];
  for (const connection of state.data.connections.values()) {
    const user = connection.users.get(key);
    // The service matches the address case-sensitively (api-notes, round 4); users are kept by their lower case.
    if (!user || user.email !== email) continue;
    users.push({
      user_id: user.user_id,
      email: user.email,
      email_verified: true,
      name: user.name,
      identities: [
        {
          connection: connection.name,
          provider: connection.strategy,
          user_id: user.user_id.slice(user.user_id.indexOf('|') + 1),
          isSocial: false,
        },
      ],
      created_at: user.created_at,
      updated_at: user.created_at,
    });
  }
  sendJson(call.res, 200, users, call.headers);
}
