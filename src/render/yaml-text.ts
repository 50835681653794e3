import { Document, visit } from 'yaml';

// What a terminal could act on, or what hides text (as neutralize): such strings are written double-quoted.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
// The library escapes C0 controls in double quotes but writes these as they are.
const UNESCAPED = /[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A value as YAML (1.2), with no line folding, and every string holding a control, bidi or zero-width character
 * double-quoted with that character escaped: still the same data, never acted on by a terminal.
 */
function yamlText(value: unknown): string {
  const doc = new Document(value);
  let quoted = false;
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && UNSAFE.test(node.value)) {
        node.type = 'QUOTE_DOUBLE';
        quoted = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0 });
  // Every such character is now inside a double-quoted scalar, where `\uXXXX` is an escape.
  return quoted ? text.replace(UNESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

/** One YAML document. */
export function yamlDocument(value: unknown): string {
  return yamlText(value);
}

/** One entry of a YAML sequence (`- …`): entries written one after another make one list. */
export function yamlSequenceEntry(value: unknown): string {
  return yamlText([value]);
}

/** One document of a YAML stream (`---` before each): for items printed as they arrive. */
export function yamlStreamDocument(value: unknown): string {
  return `---\n${yamlText(value)}`;
}
