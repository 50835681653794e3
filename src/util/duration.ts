import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** No duration option goes beyond a year: longer is a typo, and `--since` that far back predates any retention. */
export const MAX_DURATION_DAYS = 365;
const MAX_DURATION_MS = MAX_DURATION_DAYS * 86_400_000;

/** Parses `500ms`, `30s`, `15m`, `2h`, `7d` (or a bare number of seconds) into milliseconds, at most a year. */
export function parseDuration(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) {
    throw new UsageError(`invalid ${what} '${neutralize(text)}': expected a duration such as 30s, 15m, 2h or 7d`);
  }
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000);
  if (!(ms <= MAX_DURATION_MS)) {
    throw new UsageError(`invalid ${what} '${neutralize(text)}': at most ${MAX_DURATION_DAYS}d`);
  }
  return Math.round(ms);
}

/**
 * A whole number within [min, max], or a usage error naming the option. Without a max of its own, an option takes
 * any whole number JavaScript holds exactly (up to 2^53 - 1): beyond, it says the number is too large.
 */
export function parseIntegerOption(text: string, option: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const bounded = max < Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(text.trim())) {
    throw new UsageError(
      `${option} must be a whole number${bounded ? ` from ${min} to ${max}` : ` of at least ${min}`}, got '${text}'`,
    );
  }
  const value = Number(text.trim());
  if (value > max && !bounded) throw new UsageError(`${option} must be at most ${max}, got ${text.trim()}`);
  if (value < min || value > max) {
    throw new UsageError(`${option} must be ${bounded ? `from ${min} to ${max}` : `at least ${min}`}, got ${text}`);
  }
  return value;
}
