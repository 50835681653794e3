import { findUsersByEmail, listUserPermissions, permissionItems } from '../../api/endpoints.js';
import { userPermissionPages } from '../../api/pagers.js';
import type { Invocation } from '../../cli/host.js';
import type { EmailUser, PermissionSource, UserPermission } from '../../domain/resources.js';
import { cell, type ListTable, timeCell } from '../../render/table-model.js';
import { neutralize } from '../../text/sanitize.js';
import type { UserPermissionsOptions } from './options.js';

export async function runUsersFind(inv: Invocation, email: string): Promise<void> {
  const { data } = await findUsersByEmail(inv.services.api(), email);
  const table = (items: readonly EmailUser[]) => emailUsersTable(items, inv.ctx.clock.now());
  await inv.out.page(data, data, table, { empty: `No user has the e-mail ${neutralize(email)}.` });
  // The service matches the address case-sensitively (api-notes, round 4): capitals are the likely miss.
  if (data.length === 0 && email !== email.toLowerCase()) {
    const lower = inv.paste(['users', 'find', '--email', email.toLowerCase()]);
    inv.io.notice(`The service matches e-mails case-sensitively; in lower case: ${lower}`);
  }
}

/**
 * Several connections may hold the same address: the user id and the connection tell the rows apart and are never
 * cut; the name is cut, then the time goes. -o wide adds the address and the provider.
 */
export function emailUsersTable(items: readonly EmailUser[], now: number): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'user id', fit: 'key' },
      { name: 'connection', fit: 'key' },
      { name: 'name', fit: 'text', rank: 2 },
      { name: 'created (utc)', fit: 'detail', rank: 1 },
      { name: 'email', fit: 'detail', wide: true },
      { name: 'provider', fit: 'detail', wide: true },
    ],
    rows: items.map((u) => {
      const identity = Array.isArray(u.identities) ? u.identities[0] : undefined;
      return [
        cell(u.user_id),
        cell(identity?.connection),
        cell(u.name),
        timeCell(u.created_at, now),
        cell(u.email),
        cell(identity?.provider),
      ];
    }),
  };
}

export async function runUserPermissions(inv: Invocation, opts: UserPermissionsOptions): Promise<void> {
  const api = inv.services.api();
  if (opts.all) {
    const trace = inv.io.trace;
    const pages = userPermissionPages(api, opts.userId, {
      perPage: opts.perPage,
      concurrency: opts.concurrency,
      ...(trace
        ? { onWindow: (window: number) => trace(`pagination: ${window} request(s) at once (rate-limit headers)`) }
        : {}),
    });
    return inv.out.all(pages, permissionsTable, `User ${neutralize(opts.userId)} has no permissions.`);
  }
  const { data } = await listUserPermissions(api, opts.userId, {
    page: opts.page,
    perPage: opts.perPage,
    includeTotals: opts.includeTotals,
  });
  const items = permissionItems(data);
  const page = opts.page ?? 0;
  await inv.out.page(data, items, permissionsTable, {
    empty: page === 0 ? `User ${neutralize(opts.userId)} has no permissions.` : `No permissions on page ${page}.`,
    more: () => {
      if (!hasMore(data, items.length, opts)) return undefined;
      const perPage = opts.perPage === undefined ? [] : ['--per-page', String(opts.perPage)];
      const totals = opts.includeTotals ? ['--include-totals'] : [];
      const words = ['users', 'permissions', opts.userId, '--page', String(page + 1), ...perPage, ...totals];
      const total = !Array.isArray(data) && typeof data.total === 'number' ? data.total : undefined;
      return {
        total,
        maybe: total === undefined,
        next: inv.paste(words),
        all: inv.paste(['users', 'permissions', opts.userId, '--all']),
      };
    },
  });
}

/**
 * Page sizes a service serves whatever was asked: the defaults (half the maximum) and caps of public and private
 * cloud tenants (api-notes: the page size you ask for is not always the one you get).
 */
const SERVICE_PAGE_SIZES = [25, 50, 100];

/**
 * Whether a next page exists: with totals the count says it exactly; without, a page shorter than asked is the last
 * unless its length is one a tenant caps at.
 */
function hasMore(
  data: UserPermission[] | { start?: number; limit?: number; total?: number },
  count: number,
  opts: UserPermissionsOptions,
) {
  if (count === 0) return false;
  if (!Array.isArray(data) && typeof data.total === 'number') {
    const start = typeof data.start === 'number' ? data.start : (opts.page ?? 0) * (data.limit ?? count);
    return start + count < data.total;
  }
  return (opts.perPage !== undefined && count >= opts.perPage) || SERVICE_PAGE_SIZES.includes(count);
}

/**
 * A permission is told apart by its name and its API's identifier: never cut. On a narrow terminal the description
 * is cut first; then the API's name (its identifier says the same), the description and the source are hidden.
 */
export function permissionsTable(items: readonly UserPermission[]): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'permission', fit: 'key' },
      { name: 'api', fit: 'detail', rank: 1 },
      { name: 'identifier', fit: 'key' },
      { name: 'source', fit: 'detail', rank: 3 },
      { name: 'description', fit: 'text', rank: 2 },
    ],
    rows: items.map((p) => [
      cell(p.permission_name),
      cell(p.resource_server_name),
      cell(p.resource_server_identifier),
      cell(summarizeSources(p.sources)),
      cell(p.description),
    ]),
  };
}

/** `direct`, `role Admin`, or both: where a permission comes from. The spec leaves the shape open. */
export function summarizeSources(sources: unknown): string | undefined {
  if (sources === undefined || sources === null) return undefined;
  if (!Array.isArray(sources)) return typeof sources === 'string' ? sources : JSON.stringify(sources);
  const parts = sources.map((source: unknown) => {
    if (typeof source !== 'object' || source === null) return String(source);
    const { source_type: type, source_name: name, source_id: id } = source as PermissionSource;
    const kind = typeof type === 'string' && type !== '' ? type.toLowerCase() : 'source';
    const label = name || id;
    return kind === 'direct' || !label ? kind : `${kind} ${label}`;
  });
  return [...new Set(parts)].join(', ');
}
