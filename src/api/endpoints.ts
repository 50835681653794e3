import type { ApiError } from '../errors.js';
import type { ApiClient, JsonResult } from './client.js';
import { CURSOR_RULE, isCursor } from './cursor.js';
import { apiErrorFrom, parseErrorBody } from './error-body.js';
import type { HttpRequest } from './http.js';
import { malformedAnswer } from './json-answer.js';
import type { DirectoryProvisioningPage, RateLimitPolicy, UserPermission, UserPermissionTotals } from './types.js';

/** GET /rate-limit-policies/{id} (Early Access). */
export async function getRateLimitPolicy(api: ApiClient, id: string): Promise<JsonResult<RateLimitPolicy>> {
  const result = await api.getJson<unknown>(api.url(['rate-limit-policies', id]), 'rate limit policy');
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
  const result = await api.getJson<unknown>(url, 'directory provisionings');
  const body = result.data;
  if (!isRecord(body) || !Array.isArray(body.directory_provisionings)) {
    throw malformedAnswer('no directory_provisionings array');
  }
  const { next } = body;
  if (next !== undefined && next !== null && next !== '' && !(typeof next === 'string' && isCursor(next))) {
    throw malformedAnswer(`next is not a checkpoint (${CURSOR_RULE})`);
  }
  return { data: body as unknown as DirectoryProvisioningPage, headers: result.headers };
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
  throw apiErrorFrom(res, what);
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
