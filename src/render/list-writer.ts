import type { Runtime } from '../runtime.js';
import { jsonLine } from './output.js';
import { escapeJsonText } from './sanitize.js';
import type { TableSpec } from './table-model.js';

/** Prints the items of a list as they arrive: one JSON array, NDJSON lines, or (at the end) a table. */
export interface ListWriter<T> {
  add(items: readonly T[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * `-o json` writes exactly what `jsonDocument(allItems)` would, but item by item, so a long list is never held
 * as one string; `ndjson` writes one line per item; a table needs every row for its widths, so it collects.
 */
export function listWriter<T>(rt: Runtime, table: (items: T[]) => TableSpec): ListWriter<T> {
  if (rt.format === 'ndjson') {
    return {
      add: async (items) => {
        if (items.length > 0) await rt.write(items.map((item) => jsonLine(item)).join(''));
      },
      end: async () => {},
    };
  }
  if (rt.format === 'json') {
    let count = 0;
    return {
      add: async (items) => {
        if (items.length === 0) return;
        let text = '';
        for (const item of items) {
          const element = JSON.stringify(item, null, 2).replace(/\n/g, '\n  ');
          text += `${count === 0 ? '[\n  ' : ',\n  '}${element}`;
          count++;
        }
        await rt.write(escapeJsonText(text));
      },
      end: () => rt.write(count === 0 ? '[]\n' : '\n]\n'),
    };
  }
  const rows: T[] = [];
  return {
    add: async (items) => {
      rows.push(...items);
    },
    end: () => rt.printTable(table(rows)),
  };
}
