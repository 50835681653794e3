import { deleteConnectionUser, isUserNotFound } from '../api/endpoints.js';
import type { DeleteUserResult } from '../api/types.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import { confirm, mustAsk } from '../cli/confirm.js';
import { CORRELATION_ID_LOGGED, correlationIdFor, parseCorrelationId } from '../cli/correlation-id.js';
import type { Host, Invocation } from '../cli/host.js';
import { WriteInFlight } from '../cli/write-outcome.js';
import { ApiError, UsageError } from '../errors.js';
import { neutralize } from '../render/sanitize.js';

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

export function parseEmail(email: string | undefined): string {
  if (email === undefined) throw new UsageError('--email is required', 'the e-mail of the user to delete');
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

export function registerConnectionsCommands(program: SvcadmCommand, host: Host): void {
  const group = program.command('connections').description('connections of the tenant');
  group
    .command('delete-user')
    .description('delete one user of a database connection by e-mail (DELETE /connections/{id}/users)')
    .argument('<connection-id>', 'id of the database connection, e.g. con_0aB1…')
    .option('--email <email>', `e-mail of the user to delete (required; at most ${EMAIL_MAX} characters)`)
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
      host.action<[string], DeleteUserRaw>((inv, [connectionId], opts) =>
        runDeleteUser(inv, parseDeleteUserOptions(connectionId, opts)),
      ),
    );
}

export async function runDeleteUser(inv: Invocation, opts: DeleteUserOptions): Promise<void> {
  const { io } = inv;
  const ask = mustAsk(inv, opts.yes, 'refusing to delete without confirmation', 'pass --yes to delete');
  const tenant = new URL(inv.services.credentials().origin).host;
  if (ask) {
    const question = `Delete ${neutralize(opts.email)} from connection ${neutralize(opts.connectionId)} on ${tenant}? [y/N] `;
    await confirm(inv, question, 'not confirmed: nothing was deleted');
  }
  const correlationId = correlationIdFor(opts.correlationId, io);
  const write = new WriteInFlight('DELETE', correlationId);
  // Before sending: a delete cut off on the way (a kill, a timeout) can still be looked up in the tenant logs.
  const beforeSend = () => inv.out.aside({ correlation_id: correlationId }, `Correlation id: ${correlationId}`);
  let result: DeleteUserResult;
  const base = { connection_id: opts.connectionId, email: opts.email };
  try {
    const api = inv.services.api();
    const status = await deleteConnectionUser(api, opts.connectionId, opts.email, correlationId, {
      beforeSend,
      onWire: write.onWire,
    });
    result = { ...base, outcome: 'gone', status, correlation_id: correlationId };
  } catch (err) {
    if (!(err instanceof ApiError)) throw write.explain(err);
    // A failed delete can be found in the logs too.
    if (!(opts.ifExists && isUserNotFound(err))) throw err.addHint(`correlation id ${correlationId}`);
    result = { ...base, outcome: 'not_found', status: err.status ?? 404, correlation_id: correlationId };
  }
  const where = `connection ${neutralize(opts.connectionId)}`;
  await inv.out.result(result, {
    text:
      result.outcome === 'gone'
        ? `No user ${neutralize(opts.email)} remains in ${where}\n`
        : `No change: no user ${neutralize(opts.email)} in ${where}\n`,
  });
}
