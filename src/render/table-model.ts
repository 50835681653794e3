import { neutralize } from '../text/sanitize.js';
import { tableTime } from './dates.js';

export type Tone = 'green' | 'red' | 'yellow' | 'cyan' | 'magenta' | 'blue' | 'gray';

export interface Cell {
  text: string;
  tone?: Tone;
}

/**
 * A column of a list, and how it gives way on a narrow terminal:
 * - `key`: an id, or a name that tells rows apart: never cut, never hidden;
 * - `text`: free text: cut (with `…`) before any column is hidden, then hidden in rank order;
 * - `detail`: hidden whole, in rank order.
 */
export interface Column {
  /** Lower case; shown upper case. */
  name: string;
  fit: 'key' | 'text' | 'detail';
  /** Among the columns that give way, the lower rank gives way first. */
  rank?: number;
  /** Shown only with -o wide. */
  wide?: boolean;
}

/** A list view: one row per item. Every text is neutralised when the table is built. */
export interface ListTable {
  kind: 'list';
  columns: Column[];
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

/**
 * A time of the service as `2025-06-02 09:30 (3d ago)`, UTC (`zone` adds `UTC`, for a detail view without a heading
 * to say it); text that is not a time is shown as it is.
 */
export function timeCell(value: unknown, now: number, zone = false): Cell {
  return cell(tableTime(value, now, zone) ?? value);
}
