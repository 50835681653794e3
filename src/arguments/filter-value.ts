import { UsageError } from '../errors.js';

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
