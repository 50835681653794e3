import { escapeJsonText } from './sanitize.js';

/** One JSON document, indented, with everything a terminal could act on escaped. */
export function jsonDocument(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value, null, 2))}\n`;
}

/** One compact JSON value on one line (NDJSON). */
export function jsonLine(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value))}\n`;
}
