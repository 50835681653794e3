import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './byte-codes.js';

/** What `scanEnvelopeId` could not tell without parsing (an escaped key, white space between tokens). */
export const UNSURE: unique symbol = Symbol('unsure');

/**
 * `event.id` of a payload line (a compact JSON object, already known valid), without parsing all of it: what
 * `JSON.parse(text).event.id` is when it is a string, else undefined — the last of duplicate keys wins, as in
 * JSON.parse. UNSURE when the text has what this pass does not read (an escape in a key, white space between tokens):
 * the caller parses it then. Forwarding asks it of every event, and a whole parse cost about as much as the POST.
 */
export function scanEnvelopeId(text: string): string | undefined | typeof UNSURE {
  if (text.charCodeAt(0) !== OPEN_OBJECT) return UNSURE;
  let depth = 0;
  /** Inside the value of a top-level `event` that is an object (at depth 2). */
  let inEvent = false;
  let id: string | undefined;
  let found: string | undefined;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return UNSURE;
      const after = text.charCodeAt(end + 1);
      if (after === COLON) {
        if (depth === 1 || (inEvent && depth === 2)) {
          const key = text.slice(i + 1, end);
          if (key.includes('\\')) return UNSURE;
          const value = text.charCodeAt(end + 2);
          if (depth === 1 && key === 'event') {
            // The object's `id` is taken when it closes; any other value leaves no id.
            if (value === OPEN_OBJECT) id = undefined;
            else found = undefined;
          } else if (depth === 2 && key === 'id') {
            if (value === QUOTE) {
              const valueEnd = stringEnd(text, end + 2);
              if (valueEnd < 0) return UNSURE;
              const literal = text.slice(end + 2, valueEnd + 1);
              id = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
            } else id = undefined;
          }
          if (depth === 1 && key === 'event' && value === OPEN_OBJECT) {
            depth = 2;
            inEvent = true;
            i = end + 3;
            continue;
          }
        }
      } else if (after !== COMMA && after !== CLOSE_OBJECT && after !== CLOSE_ARRAY) return UNSURE;
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (inEvent && depth === 2) {
        inEvent = false;
        found = id;
      }
      depth--;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      // A line break after the object (the NDJSON line as it is printed) ends it.
      if (depth === 0) break;
      return UNSURE;
    }
    i++;
  }
  return found;
}

/** The index of the quote that ends the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}
