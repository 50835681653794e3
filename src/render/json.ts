import { escapeJsonText } from './sanitize.js';

/** One JSON document, indented, with everything a terminal could act on escaped. */
export function jsonDocument(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value, null, 2))}\n`;
}

/** One compact JSON value on one line (NDJSON). */
export function jsonLine(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value))}\n`;
}

// A string (a key when a colon follows), a literal or a number. Strings come first, so a number inside one is left.
const TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(?:true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** JSON text coloured for a terminal, as gh and jq do: keys blue, strings green, numbers cyan, literals yellow. */
export function colorJson(json: string): string {
  return json.replace(TOKEN, (token, text: string | undefined, colon: string | undefined) => {
    if (text !== undefined) {
      return colon === undefined ? `\x1b[32m${text}\x1b[39m` : `\x1b[1;34m${text}\x1b[22;39m${colon}`;
    }
    if (token === 'null') return `\x1b[90m${token}\x1b[39m`;
    if (token === 'true' || token === 'false') return `\x1b[33m${token}\x1b[39m`;
    return `\x1b[36m${token}\x1b[39m`;
  });
}
