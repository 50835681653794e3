import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import type * as Run from './run.js';

export function registerAuthCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const auth = program.command('auth').description('access tokens for the active credentials');
  auth
    .command('token')
    .description('print an access token, alone on stdout')
    .addHelpText(
      'after',
      examples(
        'curl -H "Authorization: Bearer $(svcadm auth token)" https://tenant.example.com/api/v2/users/abc/permissions',
      ),
    )
    .action(actions.run('runAuthToken', () => undefined));
  auth
    .command('status')
    .description('show the tenant, client, token expiry and granted scopes, and where each value comes from')
    .option(
      '--check',
      'prove the credentials now: a new token from the token service, or a given token tried on the interface',
    )
    .addHelpText(
      'after',
      examples('svcadm auth status', 'svcadm auth status --check', 'svcadm auth status -o json | jq -r ".scopes[]"'),
    )
    .action(actions.run('runAuthStatus', (_args: [], opts: { check?: boolean }) => opts.check === true, {}));
}
