import {
  type ConfigItem,
  type ConfigurationKind,
  configurationOf,
  sortedItems,
} from '../domain/tenant-configuration.js';
import { ApiError, NetworkError } from '../errors.js';
import type { ApiClient } from './client.js';
import {
  connectionPages,
  directoryProvisioningPages,
  type PagerPage,
  rateLimitPolicyPages,
  userPermissionPages,
} from './pagers.js';

/**
 * A kind as a tenant has it: its items (allow-listed, sorted by natural key), or `unavailable` with the service's
 * error code when the tenant answers 403 for it (a plan without the feature, or a token without its scope:
 * docs/decisions/2026-11-28-snapshot-unavailable-kind.md).
 */
export type KindContent = { readonly items: readonly ConfigItem[] } | { readonly unavailable: string };

/** Most items of one kind svcadm holds to compare: the bound of a list printed whole (`--all`). */
export const KIND_ITEMS_MAX = 100_000;

/** What a side compares or a snapshot writes: a kind, or one user's permissions. */
export interface KindRequest {
  readonly kind: ConfigurationKind;
  /** For `permissions`: whose. */
  readonly userId?: string;
}

async function collect<T>(kind: ConfigurationKind, pages: AsyncGenerator<PagerPage<T>>): Promise<ConfigItem[]> {
  const items: ConfigItem[] = [];
  for await (const page of pages) {
    for (const item of page.items) items.push(configurationOf(kind, item));
    if (items.length > KIND_ITEMS_MAX) {
      await pages.return(undefined);
      throw new NetworkError(`the ${kind} list is longer than svcadm holds to compare (${KIND_ITEMS_MAX} items)`, {
        code: 'list_too_long',
      });
    }
  }
  return sortedItems(kind, items);
}

function pagesOf(api: ApiClient, request: KindRequest): AsyncGenerator<PagerPage<unknown>> {
  switch (request.kind) {
    case 'policies':
      return rateLimitPolicyPages(api, {});
    case 'provisionings':
      return directoryProvisioningPages(api, {});
    case 'connections':
      return connectionPages(api, {});
    case 'permissions':
      return userPermissionPages(api, request.userId ?? '', { concurrency: 4 });
  }
}

/** One kind of a tenant's configuration, read through the pagers; a 403 makes it `unavailable`. */
export async function readTenantKind(api: ApiClient, request: KindRequest): Promise<KindContent> {
  try {
    return { items: await collect(request.kind, pagesOf(api, request)) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return { unavailable: err.code ?? 'forbidden' };
    throw err;
  }
}
