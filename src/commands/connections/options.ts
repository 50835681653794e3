import { CONNECTIONS_PAGE_MAX } from '../../api/pagers.js';
import { parseConnectionFilters } from '../../arguments/connection-filters.js';
import { parseEmail } from '../../arguments/email.js';
import { parseCorrelationId } from '../../cli/correlation-id.js';
import { UsageError } from '../../errors.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from '../shared/checkpoint-list-options.js';

export interface DeleteUserRaw {
  email?: string;
  yes?: boolean;
  ifExists?: boolean;
  correlationId?: string;
  dryRun?: boolean;
}

export interface DeleteUserOptions {
  connectionId: string;
  email: string;
  yes: boolean;
  ifExists: boolean;
  /** Undefined: generate one. */
  correlationId: string | undefined;
  /** `--dry-run`: say who would be deleted; send no DELETE, ask nothing. */
  dryRun: boolean;
}

export function parseDeleteUserOptions(connectionId: string, raw: DeleteUserRaw): DeleteUserOptions {
  if (connectionId.trim() === '') throw new UsageError('the connection id must not be empty');
  const email = parseEmail(raw.email);
  const correlationId = parseCorrelationId(raw.correlationId);
  return {
    connectionId,
    email,
    yes: raw.yes === true,
    ifExists: raw.ifExists === true,
    correlationId,
    dryRun: raw.dryRun === true,
  };
}

export interface ConnectionsListRaw extends CheckpointListRaw {
  strategy?: string[];
  name?: string;
}

export interface ConnectionsListOptions extends CheckpointListOptions {
  strategies: string[];
  name: string | undefined;
}

export function parseConnectionsListOptions(raw: ConnectionsListRaw): ConnectionsListOptions {
  const filters = parseConnectionFilters(raw);
  return { ...parseCheckpointListOptions(raw, CONNECTIONS_PAGE_MAX), ...filters };
}
