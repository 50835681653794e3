import { escapeJsonText, neutralize } from '../text/sanitize.js';

/** A value a line of `-o raw` shows bare. */
function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * A string bare, a number or boolean as JSON writes it, `null` as jq -r writes it. A string is neutralised, piped as
 * on a terminal: a line break, a control character or a bidi override from the service is shown escaped (`\n`,
 * `\x1b`), so that one value is always one line for `$(…)` and `while read` (docs/decisions/2026-11-25-raw-output.md).
 */
function scalarLine(value: string | number | boolean | null): string {
  return `${typeof value === 'string' ? neutralize(value) : JSON.stringify(value)}\n`;
}

/**
 * `-o raw`, as `jq -r`: a string bare, a number or boolean as it is, an array of those one per line, anything else
 * as one line of compact JSON (escaped as the other JSON output is).
 */
export function rawText(value: unknown): string {
  if (isScalar(value)) return scalarLine(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(scalarLine).join('');
  return `${escapeJsonText(JSON.stringify(value))}\n`;
}
