import { PROVISIONINGS_PAGE_MAX } from '../api/pagers.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host } from '../cli/host.js';
import { parseCheckpointListOptions } from './checkpoint-list-options.js';

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
  return parseCheckpointListOptions(raw, TAKE_MAX);
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
      host.action<[], ProvisioningsListRaw>(async (inv, _args, opts) =>
        (await import('./runs.js')).runProvisioningsList(inv, parseProvisioningsListOptions(opts)),
      ),
    );
}
