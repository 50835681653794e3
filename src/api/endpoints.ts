import { CURSOR_RULE, isCursor } from '../domain/cursor.js';
import { DEFAULT_TAKE } from '../domain/pages.js';
import type {
  ConnectionPage,
  DirectoryProvisioningPage,
  EmailUser,
  RateLimitPolicy,
  RateLimitPolicyPage,
  UserPermission,
  UserPermissionTotals,
} from '../domain/resources.js';
import { ApiError, type ErrorReason } from '../errors.js';
import type { ApiClient, JsonResult } from './client.js';
import { apiErrorFrom, parseErrorBody } from './error-body.js';
import type { HttpRequest } from './http.js';
import { malformedAnswer } from './json-answer.js';

/** GET /rate-limit-policies/{id} (Early Access). */
export async function getRateLimitPolicy(api: ApiClient, id: string): Promise<JsonResult<RateLimitPolicy>> {
  const result = await getFeatureJson(
    api,
    api.url(['rate-limit-policies', id]),
    'rate limit policy',
    RATE_LIMITS,
    'policy_not_found',
  );
  if (!isRecord(result.data)) throw malformedAnswer('a list where a rate limit policy was expected');
  return { data: result.data as unknown as RateLimitPolicy, headers: result.headers };
}

export interface ProvisioningsQuery {
  from?: string | undefined;
  take?: number | undefined;
}

/** GET /connections-directory-provisionings (checkpoint pages). */
export async function listDirectoryProvisionings(
  api: ApiClient,
  query: ProvisioningsQuery,
): Promise<JsonResult<DirectoryProvisioningPage>> {
  const url = api.url(['connections-directory-provisionings'], { from: query.from, take: query.take });
  const result = await getFeatureJson(api, url, 'directory provisionings', DIRECTORY_PROVISIONING);
  return {
    data: checkpointBody<DirectoryProvisioningPage>(result.data, 'directory_provisionings'),
    headers: result.headers,
  };
}

/** A checkpoint page's body: an object with an array under `key` and, when more exist, a checkpoint `next`. */
function checkpointBody<P>(body: unknown, key: string, isItem: (item: unknown) => boolean = () => true): P {
  if (!isRecord(body) || !Array.isArray(body[key])) throw malformedAnswer(`no ${key} array`);
  if (!(body[key] as unknown[]).every(isItem)) throw malformedAnswer(`an item of ${key} is not an object with an id`);
  const { next } = body;
  if (next !== undefined && next !== null && next !== '' && !(typeof next === 'string' && isCursor(next))) {
    throw malformedAnswer(`next is not a checkpoint (${CURSOR_RULE})`);
  }
  return body as P;
}

/** A feature a tenant's plan may lack: its name, and what to do about it. */
interface Feature {
  name: string;
  hint: string;
}

const RATE_LIMITS: Feature = {
  name: 'rate limit policies',
  hint: 'rate limit policies are an Early Access feature: ask the service to enable them on this tenant',
};
const DIRECTORY_PROVISIONING: Feature = {
  name: 'directory provisioning',
  hint: "directory provisioning depends on the tenant's plan: enable it in the tenant's settings or ask the service",
};

/**
 * A GET whose 403 may mean the tenant lacks the feature rather than the token its scope: a 403 that names no
 * scope is said to be the feature (the vendor's own deploy tool reads it so).
 */
async function getFeatureJson(
  api: ApiClient,
  url: URL,
  what: string,
  feature: Feature,
  /** What a 404 means, for one resource asked for by id. */
  notFound?: ErrorReason,
): Promise<JsonResult<unknown>> {
  try {
    return await api.getJson<unknown>(url, what);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && notFound !== undefined && err.reason === undefined) {
      throw new ApiError(404, err.message, { code: err.code, headers: err.headers, body: err.body, reason: notFound });
    }
    if (!(err instanceof ApiError) || err.status !== 403 || err.hint !== undefined) throw err;
    const { message, code } = parseErrorBody(err.body);
    throw new ApiError(403, `${feature.name} not enabled on this tenant: ${message ?? '403 Forbidden'}`, {
      code,
      headers: err.headers,
      body: err.body,
      hint: feature.hint,
    });
  }
}

export interface RateLimitPoliciesQuery {
  take?: number | undefined;
  from?: string | undefined;
  consumerSelector?: string | undefined;
  resource?: string | undefined;
  consumer?: string | undefined;
}

/** GET /rate-limit-policies (checkpoint pages; 403 when the tenant lacks the feature). */
export async function listRateLimitPolicies(
  api: ApiClient,
  query: RateLimitPoliciesQuery,
): Promise<JsonResult<RateLimitPolicyPage>> {
  const url = api.url(['rate-limit-policies'], {
    take: query.take,
    from: query.from,
    consumer_selector: query.consumerSelector,
    resource: query.resource,
    consumer: query.consumer,
  });
  const result = await getFeatureJson(api, url, 'rate limit policies', RATE_LIMITS);
  return {
    data: checkpointBody<RateLimitPolicyPage>(result.data, 'rate_limit_policies', hasId('id')),
    headers: result.headers,
  };
}

export interface ConnectionsQuery {
  /** Any of these strategies (`auth0`: the database connections). */
  strategies?: readonly string[] | undefined;
  name?: string | undefined;
  take?: number | undefined;
  from?: string | undefined;
}

/**
 * GET /connections, always in the checkpoint form (`take` is sent, so the answer is `{connections, next}`); an older
 * service's bare array is read as one last page.
 */
export async function listConnections(api: ApiClient, query: ConnectionsQuery): Promise<JsonResult<ConnectionPage>> {
  const url = api.url(['connections'], {
    strategy: query.strategies !== undefined && query.strategies.length > 0 ? [...query.strategies] : undefined,
    name: query.name,
    take: query.take ?? DEFAULT_TAKE,
    from: query.from,
  });
  const result = await api.getJson<unknown>(url, 'connections');
  const body = Array.isArray(result.data) ? { connections: result.data } : result.data;
  return { data: checkpointBody<ConnectionPage>(body, 'connections', hasId('id')), headers: result.headers };
}

/** GET /users-by-email?email= — every user with that address (one per connection that holds it); `[]` for none. */
export async function findUsersByEmail(api: ApiClient, email: string): Promise<JsonResult<EmailUser[]>> {
  const result = await api.getJson<unknown>(api.url(['users-by-email'], { email }), `users with e-mail ${email}`);
  const body = result.data;
  if (!Array.isArray(body)) throw malformedAnswer('expected a list of users');
  if (!body.every(hasId('user_id'))) throw malformedAnswer('a user without a user_id string');
  return { data: body as EmailUser[], headers: result.headers };
}

function hasId(key: string): (item: unknown) => boolean {
  return (item) => isRecord(item) && typeof item[key] === 'string' && item[key] !== '';
}

export interface PermissionsQuery {
  page?: number | undefined;
  perPage?: number | undefined;
  includeTotals?: boolean | undefined;
}

/** GET /users/{id}/permissions (offset pages): a bare array, or with `include_totals` an object with `total`. */
export async function listUserPermissions(
  api: ApiClient,
  userId: string,
  query: PermissionsQuery,
): Promise<JsonResult<UserPermission[] | UserPermissionTotals>> {
  const url = api.url(['users', userId, 'permissions'], {
    page: query.page,
    per_page: query.perPage,
    include_totals: query.includeTotals ? 'true' : undefined,
  });
  const result = await api.getJson<unknown>(url, `user ${userId}`);
  const body = result.data;
  if (!Array.isArray(body) && !(isRecord(body) && Array.isArray(body.permissions))) {
    throw malformedAnswer('expected a list of permissions');
  }
  return { data: body as UserPermission[] | UserPermissionTotals, headers: result.headers };
}

/** The items of a permissions page, whichever shape it came in. */
export function permissionItems(body: UserPermission[] | UserPermissionTotals): UserPermission[] {
  return Array.isArray(body) ? body : body.permissions;
}

/**
 * What `connections delete-user` reports. The service answers 204 whether or not a user with that e-mail was there,
 * so the result says no such user remains (`gone`), never that one was deleted; `not_found` only where a service
 * answered 404 for the user and `--if-exists` was given.
 */
export interface DeleteUserResult {
  connection_id: string;
  email: string;
  outcome: 'gone' | 'not_found';
  status: number;
  correlation_id: string;
}

/**
 * DELETE /connections/{id}/users?email= with `X-Correlation-ID`; resolves with the success status. Retried only
 * where it cannot delete twice.
 */
export async function deleteConnectionUser(
  api: ApiClient,
  connectionId: string,
  email: string,
  correlationId: string,
  hooks: { beforeSend?: () => void; onWire?: HttpRequest['onWire'] } = {},
): Promise<number> {
  const url = api.url(['connections', connectionId, 'users'], { email });
  hooks.beforeSend?.();
  const { onWire } = hooks;
  const res = await api.send(
    {
      method: 'DELETE',
      url,
      headers: { accept: 'application/json', 'x-correlation-id': correlationId },
      ...(onWire ? { onWire } : {}),
    },
    'idempotent',
  );
  if (res.status >= 200 && res.status < 300) return res.status;
  const { code } = parseErrorBody(res.body);
  const what =
    code === 'inexistent_connection' ? `connection ${connectionId}` : `user ${email} in connection ${connectionId}`;
  throw apiErrorFrom(res, what, ({ status, text }) => {
    if (status === 404 && code === 'inexistent_connection') {
      return { message: `${what} not found: ${text}`, reason: 'connection_not_found' };
    }
    if (status === 400 && /database connection/i.test(text)) {
      return { message: `the service rejected the request: ${text}`, reason: 'not_database_connection' };
    }
    return undefined;
  });
}

/** A 404 that says the user (not the connection) does not exist. */
export function isUserNotFound(err: ApiError): boolean {
  if (err.status !== 404) return false;
  const { code, message = '' } = parseErrorBody(err.body);
  if (code !== undefined) return code === 'inexistent_user';
  return /\buser\b/i.test(message) && !/\bconnection\b/i.test(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
