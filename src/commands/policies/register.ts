import { POLICIES_PAGE_MAX } from '../../api/pagers.js';
import { POLICY_ID_MAX, parsePolicyId } from '../../arguments/policy-id.js';
import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { type PoliciesListRaw, parsePoliciesListOptions } from './options.js';
import type * as Run from './run.js';

export function registerPoliciesCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const policies = program.command('policies').description('rate limit policies');
  policies
    .command('list')
    .description('list rate limit policies and their ids (GET /rate-limit-policies, Early Access)')
    .option('--consumer-selector <selector>', 'only the policies for this selector, e.g. default or client_id:<id>')
    .option('--resource <resource>', 'only the policies of this resource, e.g. oauth_authentication_api')
    .option('--consumer <consumer>', 'only the policies of this kind of consumer, e.g. client')
    .option('--from <checkpoint>', 'start at this checkpoint (the `next` of a previous page)')
    .option(
      '--take <n>',
      `results per page, 1 to ${POLICIES_PAGE_MAX} (service default 50; --all uses ${POLICIES_PAGE_MAX})`,
    )
    .option('--all', 'follow every page and print every policy once (not with --from)')
    .addHelpText(
      'after',
      examples(
        'svcadm policies list',
        'svcadm policies list --consumer-selector default',
        'svcadm policies list --all -o ndjson | jq -r .id',
      ),
    )
    .action(actions.run('runPoliciesList', (_args: [], opts: PoliciesListRaw) => parsePoliciesListOptions(opts), {}));
  policies
    .command('get')
    .description('show one rate limit policy (GET /rate-limit-policies/{id}, Early Access)')
    .argument('<id>', `policy id (1 to ${POLICY_ID_MAX} characters)`)
    .addHelpText(
      'after',
      examples('svcadm policies get rlp_01HZX3', 'svcadm policies get rlp_01HZX3 -o json | jq .configuration'),
    )
    .action(actions.run('runPoliciesGet', ([id]: [string]) => parsePolicyId(id), {}));
}
