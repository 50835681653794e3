import { listDirectoryProvisionings } from '../../api/endpoints.js';
import { directoryProvisioningPages } from '../../api/pagers.js';
import type { Invocation } from '../../cli/host.js';
import type { DirectoryProvisioning } from '../../domain/resources.js';
import { cell, type ListTable, type Tone, timeCell } from '../../render/table-model.js';
import type { ProvisioningsListOptions } from './options.js';

export async function runProvisioningsList(inv: Invocation, opts: ProvisioningsListOptions): Promise<void> {
  const api = inv.services.api();
  const table = (items: readonly DirectoryProvisioning[]) => provisioningsTable(items, inv.ctx.clock.now());
  if (opts.all) {
    return inv.out.all(directoryProvisioningPages(api, { take: opts.take }), table, 'No directory provisionings.');
  }
  const { data } = await listDirectoryProvisionings(api, { from: opts.from, take: opts.take });
  await inv.out.page(data, data.directory_provisionings, table, {
    empty:
      opts.from === undefined ? 'No directory provisionings.' : 'No directory provisionings after this checkpoint.',
    more: () => {
      if (!data.next) return undefined;
      const take = opts.take === undefined ? [] : ['--take', String(opts.take)];
      return {
        next: inv.paste(['provisionings', 'list', '--from', data.next, ...take]),
        all: inv.paste(['provisionings', 'list', '--all', ...take]),
      };
    },
  });
}

const STATUS_TONE: Record<string, Tone> = { success: 'green', failed: 'red' };

/** The last synchronisation's status, and its error when it has one: `failed: Timed out after 300 s`. */
function syncStatus(p: DirectoryProvisioning): string | undefined {
  const status = p.last_synchronization_status;
  const error = p.last_synchronization_error;
  if (error === undefined || error === '') return status;
  return `${status ?? 'error'}: ${error}`;
}

/** `email=mail, family_name=sn`: service attribute = directory attribute. */
function mappingText(mapping: unknown): string | undefined {
  if (!Array.isArray(mapping)) return undefined;
  return mapping
    .map((m: unknown) => {
      const pair = (typeof m === 'object' && m !== null ? m : {}) as { svc?: unknown; idp?: unknown };
      return `${String(pair.svc ?? '?')}=${String(pair.idp ?? '?')}`;
    })
    .join(', ');
}

/**
 * Name and id tell rows apart and are never cut; the status (with a failure's error) is cut before anything is
 * hidden; then strategy, then the time go. -o wide adds the rest.
 */
export function provisioningsTable(items: readonly DirectoryProvisioning[], now: number): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'connection', fit: 'key' },
      { name: 'connection id', fit: 'key' },
      { name: 'strategy', fit: 'detail', rank: 1 },
      { name: 'last sync (utc)', fit: 'detail', rank: 2 },
      { name: 'status', fit: 'text', rank: 3 },
      { name: 'auto sync', fit: 'detail', wide: true },
      { name: 'sync groups', fit: 'detail', wide: true },
      { name: 'mappings', fit: 'detail', wide: true },
      { name: 'created (utc)', fit: 'detail', wide: true },
      { name: 'updated (utc)', fit: 'detail', wide: true },
    ],
    rows: items.map((p) => [
      cell(p.connection_name),
      cell(p.connection_id),
      cell(p.strategy),
      timeCell(p.last_synchronization_at, now),
      cell(syncStatus(p), STATUS_TONE[p.last_synchronization_status ?? ''] ?? 'yellow'),
      cell(p.synchronize_automatically === undefined ? undefined : p.synchronize_automatically ? 'yes' : 'no'),
      cell(p.synchronize_groups),
      cell(mappingText(p.mapping)),
      timeCell(p.created_at, now),
      timeCell(p.updated_at, now),
    ]),
  };
}
