import { examples, option, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { type DiffRaw, parseDiffOptions } from './options.js';
import type * as Run from './run.js';

export function registerDiffCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('diff')
    .description(
      'compare two tenants (a profile, or a snapshot folder: a side with a / or naming a folder); exit 10 when they differ',
    )
    .argument('[left]', 'a profile, or a snapshot folder (<dir>/<profile>)')
    .argument('[right]', 'a profile, or a snapshot folder')
    .addOption(option('--kind <kind>', 'only this kind: policies, provisionings, connections, permissions').repeated())
    .addOption(option('--ignore <field>', 'also ignore this field, a dotted path').repeated())
    .addOption(
      option(
        '--user <left-id>=<right-id>',
        "compare this user's permissions (user ids differ between tenants)",
      ).repeated(),
    )
    .addOption(
      option(
        '--against <baseline>',
        'with --profiles: compare each tenant with this profile or snapshot folder',
      ).completes({
        kind: 'profiles',
      }),
    )
    .addHelpText(
      'after',
      examples(
        'svcadm diff staging prod',
        'svcadm diff tenants/prod prod',
        'svcadm diff dev prod --kind policies -o json',
        "svcadm diff --against staging --profiles 'prod-*'",
      ),
    )
    .action(
      actions.run(
        'runDiff',
        (args: [string | undefined, string | undefined], opts: DiffRaw) => parseDiffOptions(args, opts),
        {
          many: 'runDiffAgainst',
          refuse: (o) =>
            o.against === undefined
              ? 'compares the two sides named on its line; --against <baseline> compares each tenant with one'
              : undefined,
        },
      ),
    );
}
