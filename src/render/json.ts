import { escapeJsonText } from '../text/sanitize.js';
import { painter } from './color.js';

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
  const [key, string, literal, nil, number] = [
    painter(['bold', 'blue'], true),
    painter('green', true),
    painter('yellow', true),
    painter('gray', true),
    painter('cyan', true),
  ];
  return json.replace(TOKEN, (token, text: string | undefined, colon: string | undefined) => {
    if (text !== undefined) return colon === undefined ? string(text) : `${key(text)}${colon}`;
    if (token === 'null') return nil(token);
    if (token === 'true' || token === 'false') return literal(token);
    return number(token);
  });
}
