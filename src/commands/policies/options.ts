import { POLICIES_PAGE_MAX } from '../../api/pagers.js';
import { filterValue } from '../../arguments/filter-value.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from '../shared/checkpoint-list-options.js';

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

export function parsePoliciesListOptions(raw: PoliciesListRaw): PoliciesListOptions {
  return {
    ...parseCheckpointListOptions(raw, POLICIES_PAGE_MAX),
    consumerSelector: filterValue(raw.consumerSelector, '--consumer-selector'),
    resource: filterValue(raw.resource, '--resource'),
    consumer: filterValue(raw.consumer, '--consumer'),
  };
}
