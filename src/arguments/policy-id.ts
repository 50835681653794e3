import { UsageError } from '../errors.js';

export const POLICY_ID_MAX = 26;

/** A rate limit policy's id as given (`policies get`, the MCP tool `get_rate_limit_policy`), or a usage error. */
export function parsePolicyId(id: string): string {
  if (id.length < 1 || id.length > POLICY_ID_MAX) {
    throw new UsageError(`policy id must be 1 to ${POLICY_ID_MAX} characters, got ${id.length}`);
  }
  return id;
}
