import { OFFSET_CONCURRENCY_DEFAULT } from '../../api/paginate.js';
import { EMAIL_MAX, parseEmail } from '../../arguments/email.js';
import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import {
  CONCURRENCY_MAX,
  PER_PAGE_MAX,
  PER_PAGE_MIN,
  parseUserPermissionsOptions,
  type UserPermissionsRaw,
} from './options.js';
import type * as Run from './run.js';

export function registerUsersCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const group = program.command('users').description('users of the tenant');
  group
    .command('find')
    .description('find the users with an e-mail address, in every connection (GET /users-by-email)')
    .requiredOption('--email <address>', `the e-mail address (required; at most ${EMAIL_MAX} characters)`)
    .addHelpText(
      'after',
      examples(
        'svcadm users find --email bob@example.com',
        "svcadm users find --email bob@example.com -o json | jq -r '.[].user_id'",
      ),
    )
    .action(
      actions.run(
        'runUsersFind',
        (_args: [], opts: { email?: string }) => parseEmail(opts.email, 'the address to look up'),
        {},
      ),
    );
  group
    .command('permissions')
    .description(
      'list the permissions of a user, direct and from directly assigned roles (GET /users/{id}/permissions)',
    )
    .argument('<user-id>', 'id of the user, e.g. auth0|64b…')
    .option('--page <n>', 'page index, 0 or more (first page is 0)')
    .option('--per-page <n>', `results per page, ${PER_PAGE_MIN} to ${PER_PAGE_MAX} (--all uses ${PER_PAGE_MAX})`)
    .option('--include-totals', 'return the page inside an object with the total count (json)')
    .option('--all', 'fetch every page and print every permission once, in order (not with --page)')
    .option(
      '--concurrency <n>',
      `pages fetched at once with --all, 1 to ${CONCURRENCY_MAX} (default ${OFFSET_CONCURRENCY_DEFAULT}; fewer while the rate limit runs low)`,
    )
    .addHelpText(
      'after',
      examples(
        "svcadm users permissions 'db|64b0c1…'",
        "svcadm users permissions 'db|64b0c1…' --page 1 --per-page 50 --include-totals -o json",
        "svcadm users permissions 'db|64b0c1…' --all -o ndjson | jq -r .permission_name",
      ),
    )
    .action(
      actions.run(
        'runUserPermissions',
        ([userId]: [string], opts: UserPermissionsRaw) => parseUserPermissionsOptions(userId, opts),
        {},
      ),
    );
}
