import { getRateLimitPolicy, listRateLimitPolicies } from '../../api/endpoints.js';
import { rateLimitPolicyPages } from '../../api/pagers.js';
import type { Invocation } from '../../cli/host.js';
import type { RateLimitPolicy } from '../../domain/resources.js';
import { cell, type DetailTable, type ListTable, type Tone, timeCell } from '../../render/table-model.js';
import { takeWords } from '../shared/checkpoint-list-options.js';
import type { PoliciesListOptions } from './options.js';

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
