import {
  beforeQuestion,
  lookUpUserDeletion,
  previewLines,
  previewOutcome,
  previewUserDeletion,
} from '../../api/delete-preview.js';
import { type DeleteUserResult, deleteConnectionUser, isUserNotFound, listConnections } from '../../api/endpoints.js';
import { connectionPages } from '../../api/pagers.js';
import { confirm, mustAsk } from '../../cli/confirm.js';
import { correlationIdFor } from '../../cli/correlation-id.js';
import type { Invocation } from '../../cli/host.js';
import type { Tenants } from '../../cli/tenants.js';
import { WriteInFlight } from '../../cli/write-outcome.js';
import type { Connection } from '../../domain/resources.js';
import { ApiError } from '../../errors.js';
import { cell, type ListTable } from '../../render/table-model.js';
import { neutralize } from '../../text/sanitize.js';
import { takeWords } from '../shared/checkpoint-list-options.js';
import type { ConnectionsListOptions, DeleteUserOptions } from './options.js';

export async function runConnectionsList(inv: Invocation, opts: ConnectionsListOptions): Promise<void> {
  const api = inv.services.api();
  const filters = { strategies: opts.strategies, name: opts.name };
  const filtered = opts.strategies.length > 0 || opts.name !== undefined;
  const none = filtered ? 'No connections match.' : 'No connections.';
  if (opts.all) return inv.out.all(connectionPages(api, { ...filters, take: opts.take }), connectionsTable, none);
  const { data } = await listConnections(api, { ...filters, take: opts.take, from: opts.from });
  await inv.out.page(data, data.connections, connectionsTable, {
    empty: opts.from === undefined ? none : 'No connections after this checkpoint.',
    more: () => {
      if (!data.next) return undefined;
      const filterWords = [
        ...opts.strategies.flatMap((s) => ['--strategy', s]),
        ...(opts.name === undefined ? [] : ['--name', opts.name]),
      ];
      return {
        next: inv.paste(['connections', 'list', ...filterWords, '--from', data.next, ...takeWords(opts.take)]),
        all: inv.paste(['connections', 'list', ...filterWords, '--all', ...takeWords(opts.take)]),
      };
    },
  });
}

/** Id and name tell connections apart and are never cut; the strategy gives way. -o wide adds the rest. */
export function connectionsTable(items: readonly Connection[]): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'id', fit: 'key' },
      { name: 'name', fit: 'key' },
      { name: 'strategy', fit: 'detail', rank: 1 },
      { name: 'display name', fit: 'detail', wide: true },
      { name: 'domain', fit: 'detail', wide: true },
    ],
    rows: items.map((c) => [
      cell(c.id),
      cell(c.name),
      cell(c.strategy),
      cell(c.display_name),
      cell(c.is_domain_connection === undefined ? undefined : c.is_domain_connection ? 'yes' : 'no'),
    ]),
  };
}

export async function runDeleteUser(inv: Invocation, opts: DeleteUserOptions): Promise<void> {
  if (opts.dryRun) return previewDeleteUser(inv, opts);
  const { io } = inv;
  const ask = mustAsk(inv, opts.yes, 'refusing to delete without confirmation', 'pass --yes to delete');
  const tenant = new URL(inv.services.credentials().origin).host;
  if (ask) {
    // The question says what a dry run would: who the delete may remove, or what could not be looked up.
    const lookup = await lookUpUserDeletion(inv.services.api(), opts.connectionId, opts.email, connectionsHint(inv));
    const before = beforeQuestion(lookup, opts.email, opts.connectionId);
    const question = `${before}Delete ${neutralize(opts.email)} from connection ${neutralize(opts.connectionId)} on ${tenant}? [y/N] `;
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

/** `delete-user --dry-run`: reads only (the connection, the e-mail), then who would be deleted. */
async function previewDeleteUser(inv: Invocation, opts: DeleteUserOptions): Promise<void> {
  const preview = await previewUserDeletion(inv.services.api(), opts.connectionId, opts.email, connectionsHint(inv));
  const lines = previewLines({ found: preview }, opts.email, opts.connectionId);
  await inv.out.result(
    { ...preview, outcome: previewOutcome(preview) },
    { text: `${lines.map((line) => `${line}\n`).join('')}Dry run: nothing was deleted\n` },
  );
}

function connectionsHint(inv: Invocation): { connections: string } {
  return {
    connections: `list the database connections: ${inv.paste(['connections', 'list', '--strategy', 'auth0'])}`,
  };
}

/**
 * `connections delete-user --profiles …`: one question naming every tenant (profile and domain) a DELETE will be sent
 * to, then the delete of each tenant as it runs alone, each outcome reported (cli.md, "Many tenants").
 */
export async function runDeleteUserAcross(tenants: Tenants, opts: DeleteUserOptions): Promise<void> {
  const { inv, list } = tenants;
  // A dry run sends no DELETE: nothing to confirm.
  const ask =
    !opts.dryRun &&
    mustAsk(inv, opts.yes, 'refusing to delete without confirmation', 'pass --yes to delete from every tenant listed');
  if (ask) {
    const width = Math.max(...list.map((t) => t.profile.length));
    const lines = list.map((t) => `  ${t.profile.padEnd(width)}  ${neutralize(t.domain ?? '(no domain)')}\n`).join('');
    const question =
      `Delete ${neutralize(opts.email)} from connection ${neutralize(opts.connectionId)} on ${list.length} ` +
      `tenant${list.length === 1 ? '' : 's'}?\n${lines}[y/N] `;
    await confirm(inv, question, 'not confirmed: nothing was deleted');
  }
  // A dry run only reads: stopped, it prints nothing, as every read across tenants.
  await tenants.each((tenant) => runDeleteUser(tenant, { ...opts, yes: true }), { reportStops: opts.dryRun !== true });
}
