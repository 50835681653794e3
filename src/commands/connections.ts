import { CONNECTIONS_PAGE_MAX } from '../api/pagers.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import { CORRELATION_ID_LOGGED, parseCorrelationId } from '../cli/correlation-id.js';
import type { Host } from '../cli/host.js';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from './checkpoint-list-options.js';

export const EMAIL_MAX = 254;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface DeleteUserRaw {
  email?: string;
  yes?: boolean;
  ifExists?: boolean;
  correlationId?: string;
}

export interface DeleteUserOptions {
  connectionId: string;
  email: string;
  yes: boolean;
  ifExists: boolean;
  /** Undefined: generate one. */
  correlationId: string | undefined;
}

export function parseEmail(email: string | undefined, what = 'the e-mail of the user to delete'): string {
  if (email === undefined) throw new UsageError('--email is required', what);
  if (email.length > EMAIL_MAX || !EMAIL.test(email) || /[\u0000-\u001f\u007f]/.test(email)) {
    throw new UsageError(`--email '${email}' is not a valid e-mail address`);
  }
  return email;
}

export function parseDeleteUserOptions(connectionId: string, raw: DeleteUserRaw): DeleteUserOptions {
  if (connectionId.trim() === '') throw new UsageError('the connection id must not be empty');
  const email = parseEmail(raw.email);
  const correlationId = parseCorrelationId(raw.correlationId);
  return { connectionId, email, yes: raw.yes === true, ifExists: raw.ifExists === true, correlationId };
}

export interface ConnectionsListRaw extends CheckpointListRaw {
  strategy?: string[];
  name?: string;
}

export interface ConnectionsListOptions extends CheckpointListOptions {
  strategies: string[];
  name: string | undefined;
}

/** A strategy is a short lower-case word (`auth0`, `google-oauth2`, `samlp`); a connection name at most 128. */
export const STRATEGY_MAX = 64;
const STRATEGY = new RegExp(`^[a-z0-9][a-z0-9-]{0,${STRATEGY_MAX - 1}}$`);
export const CONNECTION_NAME_MAX = 128;

export function parseConnectionsListOptions(raw: ConnectionsListRaw): ConnectionsListOptions {
  const filters = parseConnectionFilters(raw);
  return { ...parseCheckpointListOptions(raw, CONNECTIONS_PAGE_MAX), ...filters };
}

/** `--strategy` (deduplicated) and `--name` of `connections list`; the MCP tool list_connections checks them here too. */
export function parseConnectionFilters(raw: { strategy?: readonly string[] | undefined; name?: string | undefined }): {
  strategies: string[];
  name: string | undefined;
} {
  const strategies = raw.strategy ?? [];
  for (const strategy of strategies) {
    if (!STRATEGY.test(strategy)) {
      throw new UsageError(
        `--strategy '${neutralize(strategy)}' is not a strategy name`,
        'e.g. --strategy auth0 (database connections), samlp, oidc, google-oauth2',
      );
    }
  }
  const name = raw.name;
  if (name !== undefined) {
    if (name.trim() === '') throw new UsageError('--name must not be empty');
    if (name.length > CONNECTION_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new UsageError(`--name must be a connection name of at most ${CONNECTION_NAME_MAX} characters`);
    }
  }
  return { strategies: [...new Set(strategies)], name };
}

export function registerConnectionsCommands(program: SvcadmCommand, host: Host): void {
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
      host.action<[], ConnectionsListRaw>(async (inv, _args, opts) =>
        (await import('./runs.js')).runConnectionsList(inv, parseConnectionsListOptions(opts)),
      ),
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
      '--correlation-id <id>',
      `X-Correlation-ID to find the operation in the tenant logs (default: a new UUID; the service logs the first ${CORRELATION_ID_LOGGED} characters)`,
    )
    .addHelpText(
      'after',
      examples(
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob+ci@example.com',
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob@example.com --yes --if-exists -o json',
        'svcadm connections delete-user con_0aB1cD2eF3 --email bob@example.com --yes --correlation-id "$CI_JOB_ID"',
      ),
    )
    .action(
      host.action<[string], DeleteUserRaw>(async (inv, [connectionId], opts) =>
        (await import('./runs.js')).runDeleteUser(inv, parseDeleteUserOptions(connectionId, opts)),
      ),
    );
}
