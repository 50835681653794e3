import { examples, option, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { parseSnapshotOptions, type SnapshotRaw } from './options.js';
import type * as Run from './run.js';

export function registerSnapshotCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('snapshot')
    .description(
      "write each tenant's configuration to <dir>/<profile>/ as YAML: policies, provisionings, connections (and permissions with --user)",
    )
    .option('--dir <folder>', 'the folder of snapshots; each tenant gets <folder>/<profile>/, replaced whole')
    .addOption(option('--user <id>', "also keep this user's permissions").repeated())
    .addHelpText(
      'after',
      examples(
        'svcadm snapshot -p prod --dir tenants',
        "svcadm snapshot --profiles 'prod-*,staging' --dir tenants && git -C tenants diff",
        "svcadm snapshot -p dev --dir tenants --user 'auth0|6523e0'",
      ),
    )
    .action(actions.run('runSnapshot', (_args: [], opts: SnapshotRaw) => parseSnapshotOptions(opts), {}));
}
