import { type Cell, type Column, cell, type ListTable, type TableSpec } from './table-model.js';

/** One tenant's tables, in a run across several (`--profiles`). */
export interface TenantTables {
  readonly profile: string;
  readonly tables: readonly TableSpec[];
}

const PROFILE_COLUMN: Column = { name: 'profile', fit: 'key' };

/**
 * The tenants' tables as one view, in profile order: lists with the same columns become one list with a leading
 * PROFILE column, rows grouped by profile; a detail view (one resource) gets a `profile` row first.
 */
export function mergeTenantTables(tenants: readonly TenantTables[]): TableSpec[] {
  const merged: TableSpec[] = [];
  let list: ListTable | undefined;
  let columnsKey = '';
  for (const { profile, tables } of tenants) {
    const name: Cell = cell(profile);
    for (const spec of tables) {
      if (spec.kind === 'detail') {
        list = undefined;
        merged.push({ ...spec, rows: [['profile', name], ...spec.rows] });
        continue;
      }
      const key = JSON.stringify(spec.columns);
      if (list === undefined || key !== columnsKey) {
        list = { kind: 'list', columns: [PROFILE_COLUMN, ...spec.columns], rows: [] };
        columnsKey = key;
        merged.push(list);
      }
      for (const row of spec.rows) list.rows.push([name, ...row]);
    }
  }
  return merged;
}
