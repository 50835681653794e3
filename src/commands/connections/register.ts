import { CONNECTIONS_PAGE_MAX } from '../../api/pagers.js';
import { EMAIL_MAX } from '../../arguments/email.js';
import { examples, type SvcadmCommand } from '../../cli/command.js';
import { CORRELATION_ID_LOGGED } from '../../cli/correlation-id.js';
import type { GroupActions } from '../../cli/host.js';
import {
  type ConnectionsListRaw,
  type DeleteUserRaw,
  parseConnectionsListOptions,
  parseDeleteUserOptions,
} from './options.js';
import type * as Run from './run.js';

export function registerConnectionsCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const group = program.command('connections').description('connections of the tenant');
  group
    .command('list')
    .description('list connections and their ids (GET /connections)')
    .option(
      '--strategy <strategy>',
      'only connections of this strategy; repeat for several (auth0: the database connections delete-user accepts)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--name <name>', 'only the connection with this name')
    .option('--from <checkpoint>', 'start at this checkpoint (the `next` of a previous page)')
    .option(
      '--take <n>',
      `results per page, 1 to ${CONNECTIONS_PAGE_MAX} (default 50; --all uses ${CONNECTIONS_PAGE_MAX})`,
    )
    .option('--all', 'follow every page and print every connection once (not with --from)')
    .addHelpText(
      'after',
      examples(
        'svcadm connections list',
        'svcadm connections list --strategy auth0',
        'svcadm connections list --strategy samlp --strategy oidc --all -o ndjson | jq -r .id',
      ),
    )
    .action(
      actions.run('runConnectionsList', (_args: [], opts: ConnectionsListRaw) => parseConnectionsListOptions(opts), {}),
    );
  group
    .command('delete-user')
    .description('delete one user of a database connection by e-mail (DELETE /connections/{id}/users)')
    .destructive()
    .argument('<connection-id>', 'id of the database connection, e.g. con_0aB1…')
    .requiredOption('--email <email>', `e-mail of the user to delete (required; at most ${EMAIL_MAX} characters)`)
    .option('-y, --yes', 'do not ask for confirmation (required off a terminal)')
    .option('--if-exists', 'succeed with "no change" when the user does not exist')
    .option(
      '--dry-run',
      'check the connection and look the e-mail up, and print who would be deleted; send no DELETE, ask nothing (exit 5: no user has it)',
    )
    .option(
      '--correlation-id <id>',
      `X-Correlation-ID to find the operation in the tenant logs (default: a new UUID; the service logs the first ${CORRELATION_ID_LOGGED} characters)`,
    )
    .addHelpText(
      'after',
      examples(
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob+ci@example.com',
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob@example.com --dry-run',
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob@example.com --yes --if-exists -o json',
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob@example.com --yes --correlation-id "$CI_JOB_ID"',
      ),
    )
    .action(
      actions.run(
        'runDeleteUser',
        ([connectionId]: [string], opts: DeleteUserRaw) => parseDeleteUserOptions(connectionId, opts),
        { many: 'runDeleteUserAcross' },
      ),
    );
}
