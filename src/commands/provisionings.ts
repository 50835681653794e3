import { listDirectoryProvisionings } from '../api/endpoints.js';
import { directoryProvisioningPages, PROVISIONINGS_PAGE_MAX } from '../api/pagers.js';
import type { DirectoryProvisioning } from '../api/types.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import { UsageError } from '../errors.js';
import { neutralize } from '../render/sanitize.js';
import { cell, type ListTable, type Tone } from '../render/table-model.js';
import { parseIntegerOption } from '../util/duration.js';
import { shellWord } from '../util/shell-word.js';
import { keepYoungGenerationSmall } from '../util/young-generation.js';

export const TAKE_MIN = 1;
export const TAKE_MAX = PROVISIONINGS_PAGE_MAX;

export interface ProvisioningsListRaw {
  from?: string;
  take?: string;
  all?: boolean;
}

export interface ProvisioningsListOptions {
  from: string | undefined;
  take: number | undefined;
  all: boolean;
}

export function parseProvisioningsListOptions(raw: ProvisioningsListRaw): ProvisioningsListOptions {
  const all = raw.all === true;
  if (all && raw.from !== undefined) {
    throw new UsageError(
      '--all cannot be combined with --from',
      '--all starts at the beginning and follows every page',
    );
  }
  if (raw.from !== undefined && raw.from.trim() === '') throw new UsageError('--from must not be empty');
  const take = raw.take === undefined ? undefined : parseIntegerOption(raw.take, '--take', TAKE_MIN, TAKE_MAX);
  return { from: raw.from, take, all };
}

export function registerProvisioningsCommands(program: SvcadmCommand, host: Host): void {
  const group = program.command('provisionings').description('directory provisioning configurations');
  group
    .command('list')
    .description('list directory provisioning configurations (GET /connections-directory-provisionings)')
    .option('--from <checkpoint>', 'start at this checkpoint (the `next` of a previous page)')
    .option('--take <n>', `results per page, ${TAKE_MIN} to ${TAKE_MAX} (service default 50; --all uses ${TAKE_MAX})`)
    .option('--all', 'follow every page and print every configuration once (not with --from)')
    .addHelpText(
      'after',
      examples(
        'svcadm provisionings list',
        'svcadm provisionings list --take 10 --from <next>',
        'svcadm provisionings list --all -o ndjson | jq -r .connection_name',
      ),
    )
    .action(
      host.action<[], ProvisioningsListRaw>((inv, _args, opts) =>
        runProvisioningsList(inv, parseProvisioningsListOptions(opts)),
      ),
    );
}

export async function runProvisioningsList(inv: Invocation, opts: ProvisioningsListOptions): Promise<void> {
  const api = inv.services.api();
  if (opts.all) {
    keepYoungGenerationSmall();
    return inv.out.all(directoryProvisioningPages(api, { take: opts.take }), provisioningsTable);
  }
  const { data } = await listDirectoryProvisionings(api, { from: opts.from, take: opts.take });
  await inv.out.page(data, data.directory_provisionings, provisioningsTable, {
    next: () => {
      if (!data.next) return undefined;
      const take = opts.take === undefined ? '' : ` --take ${opts.take}`;
      return `Next page: svcadm provisionings list --from ${shellWord(neutralize(data.next))}${take}`;
    },
  });
}

const STATUS_TONE: Record<string, Tone> = { success: 'green', failed: 'red' };

export function provisioningsTable(items: readonly DirectoryProvisioning[]): ListTable {
  return {
    kind: 'list',
    columns: ['connection', 'connection id', 'strategy', 'auto sync', 'last sync', 'last sync at', 'mappings'],
    rows: items.map((p) => [
      cell(p.connection_name),
      cell(p.connection_id),
      cell(p.strategy),
      cell(p.synchronize_automatically === undefined ? undefined : p.synchronize_automatically ? 'yes' : 'no'),
      cell(p.last_synchronization_status, STATUS_TONE[p.last_synchronization_status ?? ''] ?? 'yellow'),
      cell(p.last_synchronization_at),
      cell(Array.isArray(p.mapping) ? String(p.mapping.length) : undefined),
    ]),
  };
}
