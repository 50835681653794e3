import type { ApiClient } from './client.js';
import { listDirectoryProvisionings, listUserPermissions, permissionItems } from './endpoints.js';
import { checkpointPages, deduplicator, orderedPages } from './paginate.js';
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
 * Every permission of a user, each once, in service order (octokit-style pager). The first page, asked with
 * `include_totals`, tells how many pages to fetch concurrently; without a total, pages come one at a time until a
 * short one.
 */
export async function* userPermissionPages(
  api: ApiClient,
  userId: string,
  opts: PermissionPagesOptions,
): AsyncGenerator<PagerPage<UserPermission>> {
  const perPage = opts.perPage ?? PERMISSIONS_PAGE_MAX;
  const unique = deduplicator<UserPermission>(permissionKey);
  const first = await listUserPermissions(api, userId, { page: 0, perPage, includeTotals: true });
  const firstItems = permissionItems(first.data);
  const total = Array.isArray(first.data) ? undefined : first.data.total;
  let fetched = firstItems.length;
  yield { items: unique(firstItems), fetched, total };
  const pages = orderedPages<UserPermission>({
    fetchPage: async (page) => {
      const { data, headers } = await listUserPermissions(api, userId, { page, perPage });
      return { items: permissionItems(data), headers };
    },
    from: 1,
    // Without a total (the service ignored include_totals), go on page by page only after a full first page.
    knownEnd: typeof total === 'number' ? Math.ceil(total / perPage) : firstItems.length < perPage ? 1 : undefined,
    perPage,
    concurrency: opts.concurrency,
    previousHeaders: first.headers,
    ...(opts.onWindow ? { onWindow: opts.onWindow } : {}),
  });
  for await (const page of pages) {
    if (page.items.length === 0) continue;
    fetched += page.items.length;
    yield { items: unique(page.items), fetched, total: total === undefined ? undefined : Math.max(total, fetched) };
  }
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
