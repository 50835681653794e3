import { CONNECTIONS_PAGE_MAX } from '../../api/pagers.js';
import { parseCorrelationId } from '../../cli/correlation-id.js';
import { UsageError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import {
  type CheckpointListOptions,
  type CheckpointListRaw,
  parseCheckpointListOptions,
} from '../shared/checkpoint-list-options.js';
import { parseEmail } from '../shared/email-option.js';

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

/** A strategy is a short lower-case word (`auth0`, `google-oauth2`, `samlp`); a connection name at most 128. */
export const STRATEGY_MAX = 64;
export const STRATEGY = new RegExp(`^[a-z0-9][a-z0-9-]{0,${STRATEGY_MAX - 1}}$`);
export const CONNECTION_NAME_MAX = 128;

export function parseConnectionsListOptions(raw: ConnectionsListRaw): ConnectionsListOptions {
  const filters = parseConnectionFilters(raw);
  return { ...parseCheckpointListOptions(raw, CONNECTIONS_PAGE_MAX), ...filters };
}

/** `--strategy` (deduplicated) and `--name` of `connections list`; the MCP tool list_connections checks them here too. */
export function parseConnectionFilters(raw: { strategy?: readonly string[] | undefined; name?: string | undefined }): {
  strategies: string[];
  name: string | undefined;
} {
  const strategies = raw.strategy ?? [];
  for (const strategy of strategies) {
    if (!STRATEGY.test(strategy)) {
      throw new UsageError(
        `--strategy '${neutralize(strategy)}' is not a strategy name`,
        'e.g. --strategy auth0 (database connections), samlp, oidc, google-oauth2',
      );
    }
  }
  const name = raw.name;
  if (name !== undefined) {
    if (name.trim() === '') throw new UsageError('--name must not be empty');
    if (name.length > CONNECTION_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new UsageError(`--name must be a connection name of at most ${CONNECTION_NAME_MAX} characters`);
    }
  }
  return { strategies: [...new Set(strategies)], name };
}
