import { neutralize } from './sanitize.js';

export type Tone = 'green' | 'red' | 'yellow' | 'cyan' | 'magenta' | 'blue' | 'gray';

export interface Cell {
  text: string;
  tone?: Tone;
}

/** A list view: one row per item. Every text is neutralised when the table is built. */
export interface ListTable {
  kind: 'list';
  columns: string[];
  rows: Cell[][];
}

/** A single resource: label / value pairs under an optional title. */
export interface DetailTable {
  kind: 'detail';
  title?: string;
  note?: string;
  rows: [label: string, value: Cell][];
}

export type TableSpec = ListTable | DetailTable;

/** A cell from a value of the service: neutralised, with '-' for nothing. */
export function cell(value: unknown, tone?: Tone): Cell {
  const text =
    value === undefined || value === null || value === ''
      ? '-'
      : neutralize(typeof value === 'string' ? value : JSON.stringify(value));
  return tone ? { text, tone } : { text };
}

/** The widest label of a detail table. */
export function labelWidth(spec: DetailTable): number {
  return Math.max(0, ...spec.rows.map(([label]) => label.length));
}

/** Each column's widest text, heading included, without the gutter between columns. */
export function columnWidths(spec: ListTable): number[] {
  return spec.columns.map((c, i) => Math.max(c.length, ...spec.rows.map((r) => r[i]?.text.length ?? 0)));
}

/** Plain aligned text, for a table written to a pipe or file. */
export function tableText(spec: TableSpec): string {
  if (spec.kind === 'detail') {
    const width = labelWidth(spec);
    const head = [spec.title, spec.note].filter(Boolean).join('  ');
    const lines = spec.rows.map(([label, value]) => `${label.padEnd(width)}  ${value.text}`);
    return `${head ? `${head}\n` : ''}${lines.join('\n')}\n`;
  }
  const widths = columnWidths(spec);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(spec.columns.map((c) => c.toUpperCase())), ...spec.rows.map((r) => line(r.map((c) => c.text)))].join('\n')}\n`;
}
