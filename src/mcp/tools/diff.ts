import * as z from 'zod';
import { type KindRequest, readTenantKind } from '../../api/tenant-configuration.js';
import {
  type ChangeCounts,
  CONFIGURATION_KINDS,
  compareItems,
  countChanges,
  type Difference,
} from '../../domain/tenant-configuration.js';
import { defineTool, READS, serviceObject, type ToolSpec } from '../tool.js';

/**
 * The most differences a `diff_tenants` result lists; the counts per kind are always whole
 * (docs/decisions/2026-11-28-diff-tenants-result-bound.md).
 */
export const DIFF_TOOL_MAX_DIFFERENCES = 200;

const PROFILE_NAME = z.string().min(1).max(128);
const KINDS = ['policies', 'provisionings', 'connections'] as const;

/**
 * `diff_tenants`: two tenants this server serves, compared as `svcadm diff` compares them (natural keys, the
 * allow-listed configuration). Profile names only, never folders: an agent reads no file through svcadm.
 */
export const DIFF_TENANTS: ToolSpec = defineTool({
  name: 'diff_tenants',
  title: 'Compare two tenants',
  description: `Compares the configuration of two tenants this server serves (svcadm mcp --profiles), as svcadm diff does: rate limit policies (matched by resource, consumer and selector; a client_id: selector matches only the same id), directory provisionings (by connection name) and connections (by name), ids and times ignored. Returns the counts per kind and the differences (added: only right has it, removed: only left, changed: each field left and right), at most ${DIFF_TOOL_MAX_DIFFERENCES}; omitted says how many more there were. A kind a tenant answers 403 for is listed in unavailable. Read-only.`,
  writes: false,
  namesProfiles: true,
  annotations: READS,
  input: z.strictObject({
    left: PROFILE_NAME.describe('a profile this server serves (list_profiles names them)'),
    right: PROFILE_NAME.describe('another profile this server serves'),
    kinds: z.array(z.enum(KINDS)).min(1).max(3).optional().describe('only these kinds; default all three'),
    ignore: z
      .array(z.string().min(1).max(200))
      .max(20)
      .optional()
      .describe('fields to ignore besides ids and times, as dotted paths (configuration.limit)'),
  }),
  output: z.object({
    left: z.string(),
    right: z.string(),
    counts: z.record(z.string(), z.object({ added: z.number(), removed: z.number(), changed: z.number() })),
    unavailable: z.array(z.object({ kind: z.string(), left: z.string().optional(), right: z.string().optional() })),
    differences: z.array(serviceObject),
    omitted: z.number(),
  }),
  async run({ left, right, kinds, ignore }, env) {
    const scope = CONFIGURATION_KINDS.filter((k) => (kinds ?? KINDS).includes(k as (typeof KINDS)[number]));
    const requests: KindRequest[] = scope.map((kind) => ({ kind }));
    const [l, r] = await Promise.all(
      [left, right].map((profile) => {
        const api = env.apiOf(profile);
        return Promise.all(requests.map((request) => readTenantKind(api, request)));
      }),
    );
    const ignored = new Set(ignore ?? []);
    const counts: Record<string, ChangeCounts> = {};
    const unavailable: Array<{ kind: string; left?: string; right?: string }> = [];
    const differences: Difference[] = [];
    for (const [i, kind] of scope.entries()) {
      const a = l?.[i] ?? { items: [] };
      const b = r?.[i] ?? { items: [] };
      if ('unavailable' in a || 'unavailable' in b) {
        unavailable.push({
          kind,
          ...('unavailable' in a ? { left: a.unavailable } : {}),
          ...('unavailable' in b ? { right: b.unavailable } : {}),
        });
        continue;
      }
      const found = compareItems(kind, a.items, b.items, ignored);
      counts[kind] = countChanges(found);
      differences.push(...found);
    }
    const shown = differences.slice(0, DIFF_TOOL_MAX_DIFFERENCES);
    const omitted = differences.length - shown.length;
    const text =
      differences.length === 0
        ? 'The tenants are alike.'
        : `${differences.length} differences${omitted > 0 ? `, the first ${shown.length} listed` : ''}.`;
    return { data: { left, right, counts, unavailable, differences: shown, omitted }, text };
  },
});
