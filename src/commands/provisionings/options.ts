import { PROVISIONINGS_PAGE_MAX } from '../../api/pagers.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from '../shared/checkpoint-list-options.js';

export const TAKE_MIN = 1;
export const TAKE_MAX = PROVISIONINGS_PAGE_MAX;

export type ProvisioningsListRaw = CheckpointListRaw;
export type ProvisioningsListOptions = CheckpointListOptions;

export function parseProvisioningsListOptions(raw: ProvisioningsListRaw): ProvisioningsListOptions {
  return parseCheckpointListOptions(raw, TAKE_MAX);
}
