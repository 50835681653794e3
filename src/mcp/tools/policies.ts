import * as z from 'zod';
import { getRateLimitPolicy, listRateLimitPolicies } from '../../api/endpoints.js';
import { POLICIES_PAGE_MAX } from '../../api/pagers.js';
import { FILTER_MAX, filterValue } from '../../arguments/filter-value.js';
import { POLICY_ID_MAX, parsePolicyId } from '../../arguments/policy-id.js';
import { checkpointListTool, defineTool, READS, serviceObject, type ToolSpec } from '../tool.js';

/** `get_rate_limit_policy`: one rate limit policy, by its id. */
export const GET_RATE_LIMIT_POLICY: ToolSpec = defineTool({
  name: 'get_rate_limit_policy',
  title: 'Get a rate limit policy',
  description:
    'One rate limit policy of the tenant by id (Early Access endpoint): its resource, consumer, selector and configuration (action allow/block/redirect, limit in requests per second). Needs the scope read:rate_limit_policies.',
  writes: false,
  annotations: READS,
  input: z.strictObject({
    id: z
      .string()
      .min(1)
      .max(POLICY_ID_MAX)
      .describe(`the policy id, e.g. rlp_01HZX3 (1 to ${POLICY_ID_MAX} characters)`),
  }),
  output: z.object({ policy: serviceObject }),
  async run({ id }, env) {
    const { data } = await getRateLimitPolicy(env.api(), parsePolicyId(id));
    return { data: { policy: data }, text: 'One rate limit policy.' };
  },
});

/** `list_rate_limit_policies`: a page of the policies, filtered as `policies list` filters them. */
export const LIST_RATE_LIMIT_POLICIES: ToolSpec = checkpointListTool({
  name: 'list_rate_limit_policies',
  title: 'List rate limit policies',
  description:
    'One page of the rate limit policies of the tenant (id, resource, consumer, selector, action, limit): the ids get_rate_limit_policy takes. Optional filters: consumer_selector, resource, consumer. For the next page pass next_cursor back as cursor with the same filters: the cursor does not carry them. A 403 without a missing scope means the feature is not enabled on the tenant. Needs the scope read:rate_limit_policies.',
  key: 'rate_limit_policies',
  noun: { one: 'rate limit policy', many: 'rate limit policies' },
  item: serviceObject,
  maxTake: POLICIES_PAGE_MAX,
  filters: {
    consumer_selector: z
      .string()
      .min(1)
      .max(FILTER_MAX)
      .optional()
      .describe('only the policies for this selector, e.g. default or client_id:<id>'),
    resource: z
      .string()
      .min(1)
      .max(FILTER_MAX)
      .optional()
      .describe('only the policies of this resource, e.g. oauth_authentication_api'),
    consumer: z
      .string()
      .min(1)
      .max(FILTER_MAX)
      .optional()
      .describe('only the policies of this kind of consumer, e.g. client'),
  },
  async fetch(api, { from, take }, f) {
    const query = {
      from,
      take,
      consumerSelector: filterValue(f.consumer_selector, 'consumer_selector'),
      resource: filterValue(f.resource, 'resource'),
      consumer: filterValue(f.consumer, 'consumer'),
    };
    const { data } = await listRateLimitPolicies(api, query);
    return { items: data.rate_limit_policies, next: data.next };
  },
});
