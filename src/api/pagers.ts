import type { Connection, DirectoryProvisioning, RateLimitPolicy, UserPermission } from '../domain/resources.js';
import type { ApiClient } from './client.js';
import {
  type ConnectionsQuery,
  listConnections,
  listDirectoryProvisionings,
  listRateLimitPolicies,
  listUserPermissions,
  permissionItems,
  type RateLimitPoliciesQuery,
} from './endpoints.js';
import { type CheckpointPage, checkpointPages, offsetList } from './paginate.js';

/** One page of an `--all` listing: the items not seen before, and how far the list has got. */
export interface PagerPage<T> {
  items: readonly T[];
  /** Items received so far, repeats included. */
  fetched: number;
  /** The total the service gave, never below what was received; undefined when it gave none. */
  total?: number | undefined;
}

export const PERMISSIONS_PAGE_MAX = 100;

export interface PermissionPagesOptions {
  perPage?: number | undefined;
  /** Most requests in flight at once. */
  concurrency: number;
  /** Called when the rate-limit headers change how many requests are in flight. */
  onWindow?: (window: number) => void;
}

/**
 * Every permission of a user, each once, in service order (octokit-style pager): planned from the first page's
 * totals, fetched concurrently, a shortfall against the total reported (`offsetList`).
 */
export async function* userPermissionPages(
  api: ApiClient,
  userId: string,
  opts: PermissionPagesOptions,
): AsyncGenerator<PagerPage<UserPermission>> {
  yield* offsetList<UserPermission>({
    fetch: async (page, perPage, withTotals) => {
      const { data, headers } = await listUserPermissions(api, userId, { page, perPage, includeTotals: withTotals });
      return { items: permissionItems(data), headers, totals: Array.isArray(data) ? undefined : data };
    },
    perPage: opts.perPage ?? PERMISSIONS_PAGE_MAX,
    concurrency: opts.concurrency,
    key: permissionKey,
    what: 'permissions',
    ...(opts.onWindow ? { onWindow: opts.onWindow } : {}),
  });
}

/** Permissions are told apart by API and name; anything without them by its whole content. */
function permissionKey(p: UserPermission): string {
  if (p.resource_server_identifier === undefined && p.permission_name === undefined) return JSON.stringify(p);
  return `${p.resource_server_identifier ?? ''}\u0000${p.permission_name ?? ''}`;
}

export const PROVISIONINGS_PAGE_MAX = 100;

/** Every directory provisioning configuration, each once, following the checkpoints to the end. */
export function directoryProvisioningPages(
  api: ApiClient,
  opts: { take?: number | undefined },
): AsyncGenerator<PagerPage<DirectoryProvisioning>> {
  const take = opts.take ?? PROVISIONINGS_PAGE_MAX;
  return checkpointList(
    async (from) => {
      const { data, headers } = await listDirectoryProvisionings(api, { from, take });
      return { items: data.directory_provisionings, headers, next: data.next ?? undefined };
    },
    (p) => p.connection_id ?? JSON.stringify(p),
  );
}

export const POLICIES_PAGE_MAX = 100;

/** Every rate limit policy that matches the filters, each once. */
export function rateLimitPolicyPages(
  api: ApiClient,
  query: Omit<RateLimitPoliciesQuery, 'from'>,
): AsyncGenerator<PagerPage<RateLimitPolicy>> {
  const take = query.take ?? POLICIES_PAGE_MAX;
  return checkpointList(
    async (from) => {
      const { data, headers } = await listRateLimitPolicies(api, { ...query, take, from });
      return { items: data.rate_limit_policies, headers, next: data.next ?? undefined };
    },
    (p) => p.id,
  );
}

export const CONNECTIONS_PAGE_MAX = 100;

/** Every connection that matches the filters, each once. */
export function connectionPages(
  api: ApiClient,
  query: Omit<ConnectionsQuery, 'from'>,
): AsyncGenerator<PagerPage<Connection>> {
  const take = query.take ?? CONNECTIONS_PAGE_MAX;
  return checkpointList(
    async (from) => {
      const { data, headers } = await listConnections(api, { ...query, take, from });
      return { items: data.connections, headers, next: data.next ?? undefined };
    },
    (c) => c.id,
  );
}

/** A checkpoint list followed to the end, each item once (by `key`), counting what arrived. */
async function* checkpointList<T>(
  fetchPage: (from: string | undefined) => Promise<CheckpointPage<T>>,
  key: (item: T) => string,
): AsyncGenerator<PagerPage<T>> {
  let fetched = 0;
  for await (const page of checkpointPages(fetchPage, { key })) {
    fetched += page.received;
    yield { items: page.items, fetched };
  }
}
