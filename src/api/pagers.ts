import type { ApiClient } from './client.js';
import { listDirectoryProvisionings, listUserPermissions, permissionItems } from './endpoints.js';
import { checkpointPages, deduplicator, offsetList } from './paginate.js';
import type { DirectoryProvisioning, UserPermission } from './types.js';

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
export async function* directoryProvisioningPages(
  api: ApiClient,
  opts: { take?: number | undefined },
): AsyncGenerator<PagerPage<DirectoryProvisioning>> {
  const take = opts.take ?? PROVISIONINGS_PAGE_MAX;
  const unique = deduplicator<DirectoryProvisioning>((p) => p.connection_id ?? JSON.stringify(p));
  let fetched = 0;
  const pages = checkpointPages(async (from) => {
    const { data, headers } = await listDirectoryProvisionings(api, { from, take });
    return { items: data.directory_provisionings, headers, next: data.next ?? undefined };
  });
  for await (const page of pages) {
    fetched += page.items.length;
    yield { items: unique(page.items), fetched };
  }
}
