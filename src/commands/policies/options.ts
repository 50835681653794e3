import { POLICIES_PAGE_MAX } from '../../api/pagers.js';
import { UsageError } from '../../errors.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from '../shared/checkpoint-list-options.js';

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
