import { eastAsianWidth } from 'get-east-asian-width';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// Marks that combine with the character before them, and format characters: they take no column.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI = /^\p{Emoji_Presentation}$/u;

/** Columns one character takes: 0 for a combining mark, 2 for a wide (CJK) or emoji character, else 1. */
function charWidth(ch: string): number {
  if (ZERO_WIDTH.test(ch)) return 0;
  if (EMOJI.test(ch)) return 2;
  return eastAsianWidth(ch.codePointAt(0) ?? 0, { ambiguousAsWide: false });
}

/**
 * Columns `text` takes on a terminal; text holds no escapes. Character by character, as terminals count (string-width
 * does it by grapheme cluster, but its Intl.Segmenter costs about 40 ms to start: more than a table takes to print).
 */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const ch of text) width += charWidth(ch);
  return width;
}

/** The longest start of `text` that takes at most `width` columns. */
export function takeColumns(text: string, width: number): string {
  if (PRINTABLE_ASCII.test(text)) return text.slice(0, Math.max(0, width));
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch);
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return out;
}

/** `text` cut to at most `width` columns, ending with `…` when something was cut. */
export function clip(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  return `${takeColumns(text, width - 1)}…`;
}

/** `text` padded with spaces to `width` columns. */
export function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
