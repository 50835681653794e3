import { paint as style } from './color.js';
import { GUTTER, layoutColumns } from './table-layout.js';
import type { Cell, Column, DetailTable, ListTable, TableSpec, Tone } from './table-model.js';
import { clip, displayWidth, padEnd, takeColumns } from './text-width.js';

export interface TableOptions {
  /** Terminal columns to fit; undefined: no limit (off a terminal, or -o wide). */
  width: number | undefined;
  /** -o wide: every column, wide-only ones included, nothing cut. */
  wide: boolean;
  color: boolean;
  /** The heading line (false with --no-headers); a detail view's title line goes with it. */
  headers?: boolean;
  /** Accessible mode: a list's row is one line of `column: value` pairs, whole (read by a screen reader). */
  accessible?: boolean;
}

export interface RenderedTable {
  text: string;
  /** Columns left out to fit the width. */
  hidden: string[];
}

function paint(text: string, tone: Tone | undefined, color: boolean): string {
  return tone ? style(tone, text, color) : text;
}

function bold(text: string, color: boolean): string {
  return style('bold', text, color);
}

/** How a list writes its lines: the heading line (none with --no-headers or in accessible mode), then a line per row. */
export interface ListLines {
  readonly heading: string | undefined;
  row(cells: readonly Cell[]): string;
  /** Columns left out to fit the width. */
  readonly hidden: string[];
}

/**
 * A list for a screen reader or a braille display, which read a line at a time: each row says what each value is
 * (`connection: acme, strategy: okta, status: success`), nothing is cut or hidden, no padding, `-` said as `none`;
 * with --no-headers, the values alone, separated by commas.
 */
function spokenListLines(columns: readonly Column[], options: TableOptions): ListLines {
  const shown = columns.map((_, i) => i).filter((i) => options.wide || columns[i]?.wide !== true);
  const row = (cells: readonly Cell[]) =>
    shown
      .map((i) => {
        const text = cells[i]?.text ?? '';
        const value = text === '-' || text === '' ? 'none' : text;
        return options.headers === false ? value : `${columns[i]?.name ?? ''}: ${value}`;
      })
      .join(', ');
  return { heading: undefined, row, hidden: [] };
}

/**
 * The lines of a list whose cells are at most `cellWidths` wide (per column, in display columns): laid out once, then
 * written a row at a time, so that a list too long to hold (the merged tables of a run across tenants) is written
 * from its rows as they are read.
 */
export function listLines(columns: readonly Column[], cellWidths: readonly number[], options: TableOptions): ListLines {
  if (options.accessible) return spokenListLines(columns, options);
  const headings = columns.map((c) => c.name.toUpperCase());
  // Without the heading line, a column is as wide as its widest value.
  const natural = headings.map((h, i) => Math.max(options.headers === false ? 0 : displayWidth(h), cellWidths[i] ?? 0));
  const { shown, widths, hidden } = layoutColumns(columns, natural, options.width, options.wide);
  const line = (cells: ReadonlyArray<{ text: string; tone?: Tone | undefined }>, heading: boolean) =>
    shown
      .map((i, n) => {
        const value = cells[i] ?? { text: '' };
        const text = clip(value.text, widths[i] ?? 0);
        const shownText = heading ? bold(text, options.color) : paint(text, value.tone, options.color);
        const last = n === shown.length - 1;
        return last ? shownText : shownText + ' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(text)));
      })
      .join(' '.repeat(GUTTER))
      .trimEnd();
  const heading =
    options.headers === false
      ? undefined
      : line(
          headings.map((text) => ({ text })),
          true,
        );
  return { heading, row: (cells) => line(cells, false), hidden };
}

/** The widest cell of each of `columns` columns, in display columns. */
export function cellWidths(columns: number, rows: readonly (readonly Cell[])[]): number[] {
  const widths = new Array<number>(columns).fill(0);
  for (const row of rows) {
    for (let i = 0; i < columns; i++) widths[i] = Math.max(widths[i] ?? 0, displayWidth(row[i]?.text ?? ''));
  }
  return widths;
}

function listText(spec: ListTable, options: TableOptions): RenderedTable {
  const lines = listLines(spec.columns, cellWidths(spec.columns.length, spec.rows), options);
  const text = [...(lines.heading === undefined ? [] : [lines.heading]), ...spec.rows.map((row) => lines.row(row))];
  return { text: `${text.join('\n')}\n`, hidden: lines.hidden };
}

/** Breaks `text` into lines of at most `width` columns, at spaces where it can. */
function wrap(text: string, width: number): string[] {
  if (displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    let rest = word;
    while (displayWidth(rest) > width) {
      if (current !== '') {
        lines.push(current);
        current = '';
      }
      const head = takeColumns(rest, width) || ([...rest][0] ?? '');
      lines.push(head);
      rest = rest.slice(head.length);
    }
    const joined = current === '' ? rest : `${current} ${rest}`;
    if (displayWidth(joined) <= width) current = joined;
    else {
      lines.push(current);
      current = rest;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}

function detailText(spec: DetailTable, options: TableOptions): RenderedTable {
  const labelWidth = Math.max(0, ...spec.rows.map(([label]) => displayWidth(label)));
  const color = options.color;
  const head = [
    spec.title === undefined || options.headers === false ? undefined : bold(spec.title, color),
    spec.note === undefined || options.headers === false ? undefined : paint(spec.note, 'yellow', color),
  ].filter((part): part is string => part !== undefined && part !== '');
  // Values are never cut: on a terminal a long one goes on over more lines, under itself.
  const room = options.width === undefined || options.wide ? undefined : Math.max(10, options.width - labelWidth - 2);
  const lines = spec.rows.flatMap(([label, value]: [string, Cell]) => {
    const parts = room === undefined ? [value.text] : wrap(value.text, room);
    return parts.map((part, n) => {
      const left = n === 0 ? paint(padEnd(label, labelWidth), 'gray', color) : ' '.repeat(labelWidth);
      return `${left}  ${paint(part, value.tone, color)}`.trimEnd();
    });
  });
  return { text: `${head.length ? `${head.join('  ')}\n` : ''}${lines.join('\n')}\n`, hidden: [] };
}

/** A table as text: aligned columns (or label / value lines), fitted to a terminal, coloured when asked. */
export function renderTable(spec: TableSpec, options: TableOptions): RenderedTable {
  return spec.kind === 'detail' ? detailText(spec, options) : listText(spec, options);
}
