import type { Connection, EmailUser } from '../domain/resources.js';
import { CliError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import type { ApiClient } from './client.js';
import { findUsersByEmail } from './endpoints.js';
import { connectionPages } from './pagers.js';

/** The strategy of a database connection, the only kind DELETE /connections/{id}/users accepts. */
export const DATABASE_STRATEGY = 'auth0';

/** Who a delete of `email` from a connection would remove: the answer of `--dry-run` and of the tool's `dry_run`. */
export interface DeletePreview {
  connection_id: string;
  connection_name: string | null;
  email: string;
  /** The users the delete would remove (one, unless the service holds the address twice in the connection). */
  users: { user_id: string; email: string | null }[];
}

/**
 * What `connections delete-user` would do, with nothing sent but reads: the connection must exist and be a database
 * connection (the DELETE's own conditions), and a user of it must have the e-mail. Each failure is the error the
 * DELETE would give: `not_found` (5) for a connection or user not there, `rejected` (8) for a connection that is not a
 * database connection. `hint` names the next step in the caller's words (a command, or a tool).
 */
export async function previewUserDeletion(
  api: ApiClient,
  connectionId: string,
  email: string,
  hints: { connections: string },
): Promise<DeletePreview> {
  const connection = await findConnection(api, connectionId);
  if (connection === undefined) {
    throw new CliError('not_found', `connection ${neutralize(connectionId)} not found`, {
      code: 'not_found',
      hint: hints.connections,
    });
  }
  if (connection.strategy !== DATABASE_STRATEGY) {
    throw new CliError(
      'rejected',
      `connection ${neutralize(connectionId)} is not a database connection (strategy ${neutralize(connection.strategy ?? 'unknown')})`,
      { code: 'rejected', hint: hints.connections },
    );
  }
  const { data } = await findUsersByEmail(api, email);
  const users = data.filter((user) => inConnection(user, connection));
  if (users.length === 0) {
    throw new CliError(
      'not_found',
      `no user has the e-mail ${neutralize(email)} in connection ${neutralize(connectionId)}`,
      {
        code: 'not_found',
      },
    );
  }
  return {
    connection_id: connectionId,
    connection_name: connection.name ?? null,
    email,
    users: users.map((user) => ({ user_id: user.user_id, email: user.email ?? null })),
  };
}

async function findConnection(api: ApiClient, id: string): Promise<Connection | undefined> {
  for await (const page of connectionPages(api, {})) {
    const found = page.items.find((c) => c.id === id);
    if (found !== undefined) return found;
  }
  return undefined;
}

function inConnection(user: EmailUser, connection: Connection): boolean {
  return (user.identities ?? []).some((identity) => identity.connection === connection.name);
}
