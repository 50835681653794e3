import { type Column, cell, type DetailTable, type ListTable } from './table-model.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The table view of a list whose shape svcadm does not know (`svcadm api`): a column per top-level field, in the order
 * the fields first appear, nested values as compact JSON; items that are not objects in one `value` column.
 */
export function jsonListTable(items: readonly unknown[]): ListTable {
  if (!items.every(isRecord)) {
    return { kind: 'list', columns: [{ name: 'value', fit: 'text' }], rows: items.map((item) => [cell(item)]) };
  }
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  return {
    kind: 'list',
    columns: columns.map(columnOf),
    rows: items.map((item) => columns.map((c) => cell(item[c]))),
  };
}

/** What tells rows apart (an id, a name, an e-mail) is never cut; the rest gives way, the rightmost first. */
function columnOf(name: string): Column {
  const key = /^(?:id|name|email)$|_id$|_name$/.test(name);
  return { name: cell(name).text, fit: key ? 'key' : 'detail' };
}

/** The table view of one JSON value: a row per top-level field of an object, else the value itself. */
export function jsonDetailTable(value: unknown): DetailTable {
  if (!isRecord(value)) return { kind: 'detail', rows: [['value', cell(value)]] };
  return { kind: 'detail', rows: Object.entries(value).map(([key, v]) => [cell(key).text, cell(v)]) };
}
