import type { Command } from 'commander';
import { listDirectoryProvisionings } from '../api/endpoints.js';
import { checkpointPages, deduplicator } from '../api/paginate.js';
import type { DirectoryProvisioning } from '../api/types.js';
import { UsageError } from '../errors.js';
import { listWriter } from '../render/list-writer.js';
import { fetchedText, progressLine } from '../render/progress.js';
import { neutralize } from '../render/sanitize.js';
import { cell, type ListTable, type Tone } from '../render/table-model.js';
import type { Runtime } from '../runtime.js';
import { action, examples, type Session } from '../session.js';
import { parseIntegerOption } from '../util/duration.js';
import { shellWord } from '../util/shell-word.js';
import { keepYoungGenerationSmall } from '../util/young-generation.js';

export const TAKE_MIN = 1;
export const TAKE_MAX = 100;

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

export function registerProvisioningsCommands(program: Command, session: Session): void {
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
      action<[], ProvisioningsListRaw>(session, (rt, _args, opts) =>
        runProvisioningsList(rt, parseProvisioningsListOptions(opts)),
      ),
    );
}

export async function runProvisioningsList(rt: Runtime, opts: ProvisioningsListOptions): Promise<void> {
  if (opts.all) {
    keepYoungGenerationSmall();
    return listAll(rt, opts.take ?? TAKE_MAX);
  }
  const { data } = await listDirectoryProvisionings(rt.api(), { from: opts.from, take: opts.take });
  await rt.print(rt.format === 'ndjson' ? data.directory_provisionings : data, () =>
    provisioningsTable(data.directory_provisionings),
  );
  if (rt.format === 'table' && data.next) {
    const take = opts.take === undefined ? '' : ` --take ${opts.take}`;
    rt.notice(`Next page: svcadm provisionings list --from ${shellWord(neutralize(data.next))}${take}`);
  }
}

async function listAll(rt: Runtime, take: number): Promise<void> {
  const api = rt.api();
  const out = listWriter<DirectoryProvisioning>(rt, provisioningsTable);
  const unique = deduplicator<DirectoryProvisioning>((p) => p.connection_id ?? JSON.stringify(p));
  const progress = progressLine(rt);
  let fetched = 0;
  try {
    const pages = checkpointPages(async (from) => {
      const { data, headers } = await listDirectoryProvisionings(api, { from, take });
      return { items: data.directory_provisionings, headers, next: data.next ?? undefined };
    });
    for await (const page of pages) {
      fetched += page.items.length;
      progress.update(fetchedText(fetched));
      await out.add(unique(page.items));
    }
  } finally {
    progress.done();
  }
  await out.end();
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
