import { getRateLimitPolicy } from '../api/endpoints.js';
import type { RateLimitPolicy } from '../api/types.js';
import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import { UsageError } from '../errors.js';
import { cell, type DetailTable, timeCell } from '../render/table-model.js';

export const POLICY_ID_MAX = 26;

export function parsePolicyId(id: string): string {
  if (id.length < 1 || id.length > POLICY_ID_MAX) {
    throw new UsageError(`policy id must be 1 to ${POLICY_ID_MAX} characters, got ${id.length}`);
  }
  return id;
}

export function registerPoliciesCommands(program: SvcadmCommand, host: Host): void {
  const policies = program.command('policies').description('rate limit policies');
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
