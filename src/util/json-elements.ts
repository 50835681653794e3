/** A JSON document read a piece at a time: an array's opening, each of its elements, or a document that is no array. */
export type JsonPart =
  | { readonly kind: 'array' }
  | { readonly kind: 'element'; readonly value: unknown }
  | { readonly kind: 'value'; readonly value: unknown };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const OPEN_CURLY = 0x7b;
const CLOSE_CURLY = 0x7d;

/**
 * The parts of one JSON document (valid JSON, as svcadm wrote it) read from `pieces`: when it is an array, `array`
 * and then each element parsed alone, as it ends; else the whole `value` (an empty document is `null`). Only one
 * element is ever held, so a long list is never parsed whole.
 */
export async function* jsonParts(pieces: AsyncIterable<string>): AsyncGenerator<JsonPart> {
  /** Undefined until the first character that is not white space says which. */
  let array: boolean | undefined;
  let whole = '';
  let element = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let ended = false;
  for await (const piece of pieces) {
    let i = 0;
    if (array === undefined) {
      const first = piece.trimStart();
      if (first === '') continue;
      i = piece.length - first.length;
      array = first.charCodeAt(0) === OPEN_SQUARE;
      if (array) {
        yield { kind: 'array' };
        i++;
      }
    }
    if (!array) {
      whole += piece.slice(i);
      continue;
    }
    if (ended) continue;
    let start = i;
    const elements: unknown[] = [];
    for (; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_SQUARE || c === OPEN_CURLY) depth++;
      else if (depth > 0 && (c === CLOSE_SQUARE || c === CLOSE_CURLY)) depth--;
      else if (depth === 0 && (c === COMMA || c === CLOSE_SQUARE)) {
        const text = (element + piece.slice(start, i)).trim();
        element = '';
        start = i + 1;
        if (text !== '') elements.push(JSON.parse(text));
        if (c === CLOSE_SQUARE) {
          ended = true;
          break;
        }
      }
    }
    if (!ended) element += piece.slice(start);
    for (const value of elements) yield { kind: 'element', value };
  }
  if (array === undefined) yield { kind: 'value', value: null };
  else if (!array) yield { kind: 'value', value: JSON.parse(whole) };
}
