const MINUTE = 60_000;
/**
 * How long a token from the token service is taken to live, whatever `expires_in` says: at least 5 minutes (0 would
 * mean a token request per API call; a token that really expires sooner gets a 401 and is replaced once), at most
 * 30 days (the service's longest; 1e20 is no date at all).
 */
export const MIN_TOKEN_LIFETIME_MS = 5 * MINUTE;
export const MAX_TOKEN_LIFETIME_MS = 30 * 24 * 60 * MINUTE;

/** The lifetime of a new token: `expires_in` (seconds), else its JWT `exp` (ms since the epoch), clamped. */
export function tokenLifetimeMs(expiresIn: unknown, jwtExpiresAt: number | undefined, issuedAt: number): number {
  let ms = MIN_TOKEN_LIFETIME_MS;
  if (typeof expiresIn === 'number' && Number.isFinite(expiresIn)) ms = expiresIn * 1000;
  else if (jwtExpiresAt !== undefined) ms = jwtExpiresAt - issuedAt;
  return Math.min(MAX_TOKEN_LIFETIME_MS, Math.max(MIN_TOKEN_LIFETIME_MS, ms));
}

/** A JWT `exp` claim as milliseconds since the epoch, when it is a date at all. */
export function expiryOfClaim(exp: unknown): number | undefined {
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return undefined;
  const ms = exp * 1000;
  return Math.abs(ms) <= 8.64e15 ? ms : undefined;
}
