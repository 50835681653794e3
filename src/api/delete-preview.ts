import type { Connection, EmailUser } from '../domain/resources.js';
import { ApiError, CliError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import type { ApiClient } from './client.js';
import { findUsersByEmail } from './endpoints.js';
import { connectionPages } from './pagers.js';

/** The strategy of a database connection, the only kind DELETE /connections/{id}/users accepts. */
export const DATABASE_STRATEGY = 'auth0';

/** A user a delete would (or may) remove. */
export interface PreviewUser {
  user_id: string;
  email: string | null;
}

/** Who a delete of `email` from a connection would remove: the answer of `--dry-run` and of the tool's `dry_run`. */
export interface DeletePreview {
  connection_id: string;
  connection_name: string | null;
  email: string;
  /** The users the delete would remove (one, unless the service holds the address twice in the connection). */
  users: PreviewUser[];
  /**
   * Only when the address as written found nobody: the users of its lower-cased form, whom the delete may remove
   * (the lookup is case-sensitive, the delete may not be: api-notes, "Revised in round 5").
   */
  may_delete?: PreviewUser[];
}

/** What the lookups before a delete found: a preview, possibly of nobody, or the refusal of a read (403). */
export type DeleteLookup = { found: DeletePreview } | { refused: ApiError };

/**
 * The reads before a delete, with nothing written: the connection must exist and be a database connection (the
 * DELETE's own conditions), then the users with the e-mail; when the address as written finds nobody and has
 * capitals, the lower-cased address too. A read refused with 403 is returned, not thrown: the caller says what could
 * not be checked. Other failures are the error the DELETE would give: `not_found` (5) for a connection not there,
 * `rejected` (8) for one that is not a database connection. `hint` names the next step in the caller's words.
 */
export async function lookUpUserDeletion(
  api: ApiClient,
  connectionId: string,
  email: string,
  hints: { connections: string },
): Promise<DeleteLookup> {
  try {
    return { found: await lookUp(api, connectionId, email, hints) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return { refused: err };
    throw err;
  }
}

/**
 * What `connections delete-user --dry-run` and the tool's `dry_run` answer: the preview, or an error when nobody has
 * the address under either lookup (`not_found`, 5) or a read was refused (its 403, worded by `refusedLookup`).
 */
export async function previewUserDeletion(
  api: ApiClient,
  connectionId: string,
  email: string,
  hints: { connections: string },
): Promise<DeletePreview> {
  const lookup = await lookUpUserDeletion(api, connectionId, email, hints);
  if ('refused' in lookup) {
    throw new ApiError(403, refusedLookup(lookup.refused, email, connectionId), {
      code: lookup.refused.code,
      hint: lookup.refused.hint,
      headers: lookup.refused.headers,
      body: lookup.refused.body,
    });
  }
  const preview = lookup.found;
  if (isNobody(preview)) {
    throw new CliError('not_found', nobodyHas(email, connectionId), { code: 'not_found' });
  }
  return preview;
}

/**
 * The words of a lookup before a delete, one line each (without line breaks), in the order to print them: the dry
 * run prints them, the tool's dry_run answers them, and the question comes after them (`beforeQuestion`).
 */
export function previewLines(lookup: DeleteLookup, email: string, connectionId: string): string[] {
  if ('refused' in lookup) return [capitalized(refusedLookup(lookup.refused, email, connectionId))];
  const preview = lookup.found;
  if (isNobody(preview)) return [capitalized(nobodyHas(email, connectionId))];
  const connection = `connection ${neutralize(connectionId)}${preview.connection_name === null ? '' : ` (${neutralize(preview.connection_name)})`}`;
  const user = (verb: string, u: PreviewUser) =>
    `${verb} user ${neutralize(u.user_id)} (${neutralize(u.email ?? email)}) from ${connection}`;
  if (preview.users.length > 0) return preview.users.map((u) => user('Would delete', u));
  return [
    `No user has the e-mail ${neutralize(email)} as written; the service may match it as ${neutralize(email.toLowerCase())}`,
    ...(preview.may_delete ?? []).map((u) => user('May delete', u)),
  ];
}

/** What the question is preceded by: the preview's lines, but nothing for an address found as written. */
export function beforeQuestion(lookup: DeleteLookup, email: string, connectionId: string): string {
  if ('found' in lookup && lookup.found.users.length > 0) return '';
  return previewLines(lookup, email, connectionId)
    .map((line) => `${line}\n`)
    .join('');
}

/** The outcome a preview reports: `would_delete` for users found as written, `may_delete` for lower-case ones. */
export function previewOutcome(preview: DeletePreview): 'would_delete' | 'may_delete' {
  return preview.users.length === 0 && (preview.may_delete?.length ?? 0) > 0 ? 'may_delete' : 'would_delete';
}

async function lookUp(
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
  const base = { connection_id: connectionId, connection_name: connection.name ?? null, email };
  const users = await usersOf(api, connection, email);
  const lower = email.toLowerCase();
  if (users.length > 0 || lower === email) return { ...base, users };
  return { ...base, users, may_delete: await usersOf(api, connection, lower) };
}

async function usersOf(api: ApiClient, connection: Connection, email: string): Promise<PreviewUser[]> {
  const { data } = await findUsersByEmail(api, email);
  return data
    .filter((user) => inConnection(user, connection))
    .map((user) => ({ user_id: user.user_id, email: user.email ?? null }));
}

function isNobody(preview: DeletePreview): boolean {
  return preview.users.length === 0 && (preview.may_delete?.length ?? 0) === 0;
}

function nobodyHas(email: string, connectionId: string): string {
  const lower = email.toLowerCase();
  const also = lower === email ? '' : ` (nor ${neutralize(lower)})`;
  return `no user has the e-mail ${neutralize(email)}${also} in connection ${neutralize(connectionId)}`;
}

function refusedLookup(refusal: ApiError, email: string, connectionId: string): string {
  return (
    `could not look up who has the e-mail ${neutralize(email)} in connection ${neutralize(connectionId)} ` +
    `(${neutralize(refusal.message)}); the delete may still remove a user with this address`
  );
}

function capitalized(line: string): string {
  return line.charAt(0).toUpperCase() + line.slice(1);
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
