import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';

/** A strategy is a short lower-case word (`auth0`, `google-oauth2`, `samlp`); a connection name at most 128. */
export const STRATEGY_MAX = 64;
export const STRATEGY = new RegExp(`^[a-z0-9][a-z0-9-]{0,${STRATEGY_MAX - 1}}$`);
export const CONNECTION_NAME_MAX = 128;

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
