import { paint as style } from './color.js';
import { GUTTER, layoutColumns } from './table-layout.js';
import type { Cell, DetailTable, ListTable, TableSpec, Tone } from './table-model.js';
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

/**
 * A list for a screen reader or a braille display, which read a line at a time: each row says what each value is
 * (`connection: acme, strategy: okta, status: success`), nothing is cut or hidden, no padding, `-` said as `none`;
 * with --no-headers, the values alone, separated by commas.
 */
function spokenListText(spec: ListTable, options: TableOptions): RenderedTable {
  const shown = spec.columns.map((_, i) => i).filter((i) => options.wide || spec.columns[i]?.wide !== true);
  const lines = spec.rows.map((row) =>
    shown
      .map((i) => {
        const text = row[i]?.text ?? '';
        const value = text === '-' || text === '' ? 'none' : text;
        return options.headers === false ? value : `${spec.columns[i]?.name ?? ''}: ${value}`;
      })
      .join(', '),
  );
  return { text: `${lines.join('\n')}\n`, hidden: [] };
}

function listText(spec: ListTable, options: TableOptions): RenderedTable {
  if (options.accessible) return spokenListText(spec, options);
  const headings = spec.columns.map((c) => c.name.toUpperCase());
  // Without the heading line, a column is as wide as its widest value.
  const natural = headings.map((h, i) =>
    Math.max(options.headers === false ? 0 : displayWidth(h), ...spec.rows.map((r) => displayWidth(r[i]?.text ?? ''))),
  );
  const { shown, widths, hidden } = layoutColumns(spec.columns, natural, options.width, options.wide);
  const line = (cells: Array<{ text: string; tone?: Tone | undefined }>, heading: boolean) =>
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
  const lines = [
    ...(options.headers === false
      ? []
      : [
          line(
            headings.map((text) => ({ text })),
            true,
          ),
        ]),
    ...spec.rows.map((row) => line(row, false)),
  ];
  return { text: `${lines.join('\n')}\n`, hidden };
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
