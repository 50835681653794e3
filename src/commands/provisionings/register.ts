import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { type ProvisioningsListRaw, parseProvisioningsListOptions, TAKE_MAX, TAKE_MIN } from './options.js';
import type * as Run from './run.js';

export function registerProvisioningsCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
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
      actions.run(
        'runProvisioningsList',
        (_args: [], opts: ProvisioningsListRaw) => parseProvisioningsListOptions(opts),
        {},
      ),
    );
}
