import type { Column } from './table-model.js';

/** Cut free text no narrower than this (or its heading). */
const TEXT_MIN = 10;
export const GUTTER = 2;

export interface Layout {
  /** Indexes of the columns shown, in order. */
  shown: number[];
  /** Width of every column (of all columns, shown or not). */
  widths: number[];
  /** Columns left out for lack of room (not the wide-only ones of a plain table). */
  hidden: string[];
}

/**
 * Which columns a list shows and how wide, for `width` terminal columns (undefined: no limit, as off a terminal and
 * with -o wide). When it does not fit, free text is cut first, least useful first; then columns are hidden, least
 * useful first; keys (ids, names that tell rows apart) are never cut nor hidden, even if the line must then wrap.
 * A hidden column that fits in the room the others left is shown again (most useful first). Room left after hiding
 * goes back to the cut text.
 */
export function layoutColumns(
  columns: readonly Column[],
  natural: readonly number[],
  width: number | undefined,
  wide: boolean,
): Layout {
  const widths = [...natural];
  let shown = columns.map((_, i) => i).filter((i) => wide || columns[i]?.wide !== true);
  const hidden: string[] = [];
  if (width === undefined || wide) return { shown, widths, hidden };
  const total = () => shown.reduce((sum, i) => sum + (widths[i] ?? 0), 0) + GUTTER * Math.max(0, shown.length - 1);
  const rank = (i: number) => columns[i]?.rank ?? 0;
  // Least useful first; between equals, the one further right.
  const givesWay = shown.filter((i) => columns[i]?.fit !== 'key').sort((a, b) => rank(a) - rank(b) || b - a);
  const isText = (i: number) => columns[i]?.fit === 'text';
  const minimum = (i: number) => Math.min(natural[i] ?? 0, Math.max(TEXT_MIN, columns[i]?.name.length ?? 0));

  for (const i of givesWay.filter(isText)) {
    if (total() <= width) break;
    widths[i] = Math.max(minimum(i), (widths[i] ?? 0) - (total() - width));
  }
  const left: number[] = [];
  for (const i of givesWay) {
    if (total() <= width) break;
    shown = shown.filter((c) => c !== i);
    left.push(i);
  }
  // A column hidden early may fit once a wider, more useful one has gone too: every column that fits is shown.
  for (const i of [...left].reverse()) {
    const before = shown;
    shown = [...shown, i].sort((a, b) => a - b);
    if (total() > width) shown = before;
  }
  for (const i of left) if (!shown.includes(i)) hidden.push(columns[i]?.name ?? '');
  for (const i of shown.filter(isText).sort((a, b) => rank(b) - rank(a))) {
    const room = width - total();
    if (room <= 0) break;
    widths[i] = Math.min(natural[i] ?? 0, (widths[i] ?? 0) + room);
  }
  return { shown, widths, hidden };
}
