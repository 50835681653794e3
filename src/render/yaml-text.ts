import { Document, visit } from 'yaml';
import { escapeUnsafeAboveC0, hasUnsafe } from '../text/sanitize.js';

/** A YAML double-quoted escape: `\uXXXX`, or `\UXXXXXXXX` above U+FFFF (YAML has no surrogate pairs). */
function yamlEscape(codePoint: number): string {
  const hex = codePoint.toString(16);
  return codePoint > 0xffff ? `\\U${hex.padStart(8, '0')}` : `\\u${hex.padStart(4, '0')}`;
}

/** Whether a string of `value`, a key included, holds a character of neutralize's table. */
function anyUnsafe(value: unknown): boolean {
  if (typeof value === 'string') return hasUnsafe(value);
  if (Array.isArray(value)) return value.some(anyUnsafe);
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, field] of Object.entries(value)) if (hasUnsafe(key) || anyUnsafe(field)) return true;
  return false;
}

/**
 * A value as YAML (1.2), with no line folding, and every string holding a character of neutralize's table (what a
 * terminal could act on, or what hides text) double-quoted with that character escaped: still the same data, never
 * acted on by a terminal.
 */
function yamlText(value: unknown): string {
  const doc = new Document(value);
  let quoted = false;
  // The library's walk over every node is a fifth of its time (a snapshot of 20 tenants): taken only when needed.
  if (!anyUnsafe(value)) return doc.toString({ lineWidth: 0 });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && hasUnsafe(node.value)) {
        node.type = 'QUOTE_DOUBLE';
        quoted = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0 });
  // Every such character is now inside a double-quoted scalar, where `\uXXXX` is an escape; the library escapes C0
  // controls there itself but writes the others as they are.
  return quoted ? escapeUnsafeAboveC0(text, yamlEscape) : text;
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

/**
 * The opening of a sequence entry whose `result` is a list that follows item by item (`yamlResultItem`): `head`'s
 * fields, then `result:`. With the items, the same text as `yamlSequenceEntry({...head, result})`: the library writes
 * a nested block as it writes a whole one, indented (`test/render/yaml-text.test.ts` holds it to that).
 */
export function yamlEntryOpening(head: Readonly<Record<string, unknown>>): string {
  const opening = yamlSequenceEntry({ ...head, result: [] });
  // `  result: []` closes the entry: the items go beneath `  result:`.
  return `${opening.slice(0, opening.length - ' []\n'.length)}\n`;
}

/** One item of a `result` list under `yamlEntryOpening`. */
export function yamlResultItem(item: unknown): string {
  return yamlSequenceEntry(item).replace(/^(?=.)/gm, '    ');
}

/** `yamlSequenceEntry({...head, result})`, a piece at a time: a list item by item. */
export function* yamlEntryPieces(head: Readonly<Record<string, unknown>>, result: unknown): Generator<string> {
  if (!Array.isArray(result) || result.length === 0) {
    yield yamlSequenceEntry({ ...head, result });
    return;
  }
  yield yamlEntryOpening(head);
  for (const item of result) yield yamlResultItem(item);
}
