import { getRateLimitPolicy, listRateLimitPolicies } from '../api/endpoints.js';
import { POLICIES_PAGE_MAX, rateLimitPolicyPages } from '../api/pagers.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import { UsageError } from '../errors.js';
import { cell, type DetailTable, type ListTable, type Tone, timeCell } from '../render/table-model.js';
import type { RateLimitPolicy } from '../spec/resources.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
  takeWords,
} from './checkpoint-list-options.js';

export const POLICY_ID_MAX = 26;

export function parsePolicyId(id: string): string {
  if (id.length < 1 || id.length > POLICY_ID_MAX) {
    throw new UsageError(`policy id must be 1 to ${POLICY_ID_MAX} characters, got ${id.length}`);
  }
  return id;
}

export interface PoliciesListRaw extends CheckpointListRaw {
  consumerSelector?: string;
  resource?: string;
  consumer?: string;
}

export interface PoliciesListOptions extends CheckpointListOptions {
  consumerSelector: string | undefined;
  resource: string | undefined;
  consumer: string | undefined;
}

/** Longest filter value sent: far beyond any selector the service accepts, short enough for any URL. */
export const FILTER_MAX = 512;

/** A filter's value as given, or a UsageError naming `flag` (the option, or the MCP tool's argument). */
export function filterValue(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  if (value.length > FILTER_MAX) throw new UsageError(`${flag} must be at most ${FILTER_MAX} characters`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`${flag} must not contain control characters`);
  return value;
}

export function parsePoliciesListOptions(raw: PoliciesListRaw): PoliciesListOptions {
  return {
    ...parseCheckpointListOptions(raw, POLICIES_PAGE_MAX),
    consumerSelector: filterValue(raw.consumerSelector, '--consumer-selector'),
    resource: filterValue(raw.resource, '--resource'),
    consumer: filterValue(raw.consumer, '--consumer'),
  };
}

export function registerPoliciesCommands(program: SvcadmCommand, host: Host): void {
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
    .action(
      host.action<[], PoliciesListRaw>((inv, _args, opts) => runPoliciesList(inv, parsePoliciesListOptions(opts))),
    );
  policies
    .command('get')
    .description('show one rate limit policy (GET /rate-limit-policies/{id}, Early Access)')
    .argument('<id>', `policy id (1 to ${POLICY_ID_MAX} characters)`)
    .addHelpText(
      'after',
      examples('svcadm policies get rlp_01HZX3', 'svcadm policies get rlp_01HZX3 -o json | jq .configuration'),
    )
    .action(host.action<[string], object>((inv, [id]) => runPoliciesGet(inv, parsePolicyId(id))));
}

export async function runPoliciesList(inv: Invocation, opts: PoliciesListOptions): Promise<void> {
  const api = inv.services.api();
  const filters = { consumerSelector: opts.consumerSelector, resource: opts.resource, consumer: opts.consumer };
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const none = filtered ? 'No rate limit policies match.' : 'No rate limit policies.';
  if (opts.all) return inv.out.all(rateLimitPolicyPages(api, { ...filters, take: opts.take }), policiesTable, none);
  const { data } = await listRateLimitPolicies(api, { ...filters, take: opts.take, from: opts.from });
  await inv.out.page(data, data.rate_limit_policies, policiesTable, {
    empty: opts.from === undefined ? none : 'No rate limit policies after this checkpoint.',
    more: () => {
      if (!data.next) return undefined;
      const filterWords = [
        ...(opts.consumerSelector === undefined ? [] : ['--consumer-selector', opts.consumerSelector]),
        ...(opts.resource === undefined ? [] : ['--resource', opts.resource]),
        ...(opts.consumer === undefined ? [] : ['--consumer', opts.consumer]),
      ];
      return {
        next: inv.paste(['policies', 'list', ...filterWords, '--from', data.next, ...takeWords(opts.take)]),
        all: inv.paste(['policies', 'list', ...filterWords, '--all', ...takeWords(opts.take)]),
      };
    },
  });
}

const ACTION_TONE: Record<string, Tone> = { allow: 'green', block: 'red' };

/** `100/s`; nothing for allow, which has no limit. */
function limitText(policy: RateLimitPolicy): string | undefined {
  const config = policy.configuration;
  if (config?.limit === undefined) return undefined;
  return `${config.limit}/s`;
}

/**
 * The id is what `policies get` takes: never cut. The selector says whom a policy limits; it is cut (a client id URL
 * can be long) before the limit and the action are hidden. -o wide adds the rest.
 */
export function policiesTable(items: readonly RateLimitPolicy[]): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'id', fit: 'key' },
      { name: 'consumer selector', fit: 'text', rank: 3 },
      { name: 'action', fit: 'detail', rank: 2 },
      { name: 'limit', fit: 'detail', rank: 1 },
      { name: 'resource', fit: 'detail', wide: true },
      { name: 'consumer', fit: 'detail', wide: true },
      { name: 'redirect uri', fit: 'detail', wide: true },
    ],
    rows: items.map((p) => [
      cell(p.id),
      cell(p.consumer_selector),
      cell(p.configuration?.action, ACTION_TONE[p.configuration?.action ?? ''] ?? 'yellow'),
      cell(limitText(p)),
      cell(p.resource),
      cell(p.consumer),
      cell(p.configuration?.redirect_uri),
    ]),
  };
}

export async function runPoliciesGet(inv: Invocation, id: string): Promise<void> {
  const { data } = await getRateLimitPolicy(inv.services.api(), id);
  await inv.out.one(data, () => policyTable(data, inv.ctx.clock.now()));
}

export function policyTable(policy: RateLimitPolicy, now: number): DetailTable {
  const config = policy.configuration ?? { action: undefined };
  const actionTone = config.action === 'allow' ? 'green' : config.action === 'block' ? 'red' : 'yellow';
  return {
    kind: 'detail',
    title: 'Rate limit policy',
    note: '(Early Access endpoint)',
    rows: [
      ['id', cell(policy.id)],
      ['resource', cell(policy.resource)],
      ['consumer', cell(policy.consumer)],
      ['consumer_selector', cell(policy.consumer_selector)],
      ['action', cell(config.action, actionTone)],
      ['limit', cell(config.limit === undefined ? undefined : `${config.limit} requests/s`)],
      ['redirect_uri', cell(config.redirect_uri)],
      ['created_at', timeCell(policy.created_at, now, true)],
      ['updated_at', timeCell(policy.updated_at, now, true)],
    ],
  };
}
