import { type Cell, type Column, cell, type DetailTable } from './table-model.js';
import { displayWidth } from './text-width.js';

/**
 * What is kept in memory of one table a tenant printed, in a run across several (`--profiles`): a detail view (small:
 * one resource), or of a list only its columns, how wide its cells are and how many rows it has. Its rows wait in a
 * temporary file (`TenantOutput`).
 */
export type TableSegment =
  | { readonly kind: 'detail' }
  | {
      readonly kind: 'list';
      readonly columns: readonly Column[];
      /** The widest cell of each column. */
      readonly widths: readonly number[];
      readonly rows: number;
    };

/** One tenant's tables, in a run across several. */
export interface TenantSegments {
  readonly profile: string;
  readonly segments: readonly TableSegment[];
}

/** A list of the merged view: a leading PROFILE column, then the tenants' columns, with the widest cell of each. */
export interface MergedList {
  readonly columns: readonly Column[];
  readonly widths: number[];
}

/** Where one tenant's table goes in the merged view: its own detail view, or the rows of a merged list (`starts`: its first). */
export type SegmentPlace =
  | { readonly kind: 'detail' }
  | { readonly kind: 'list'; readonly list: MergedList; readonly starts: boolean };

const PROFILE_COLUMN: Column = { name: 'profile', fit: 'key' };

/**
 * The tenants' tables as one view, in profile order: lists with the same columns, one after another, become one list
 * with a leading PROFILE column, rows grouped by profile; a detail view (one resource) gets a `profile` row first
 * (`profileDetail`). Only the places are worked out here, from what each list's rows need (their widths): the rows
 * are written as they are read back. The places come per tenant, per table, in the order the tables were printed.
 */
export function mergePlan(tenants: readonly TenantSegments[]): SegmentPlace[][] {
  let list: MergedList | undefined;
  let columnsKey = '';
  return tenants.map(({ profile, segments }) =>
    segments.map((segment): SegmentPlace => {
      if (segment.kind === 'detail') {
        list = undefined;
        return { kind: 'detail' };
      }
      const key = JSON.stringify(segment.columns);
      let starts = false;
      if (list === undefined || key !== columnsKey) {
        list = { columns: [PROFILE_COLUMN, ...segment.columns], widths: segment.columns.map(() => 0) };
        list.widths.unshift(0);
        columnsKey = key;
        starts = true;
      }
      if (segment.rows > 0) {
        const widths = list.widths;
        widths[0] = Math.max(widths[0] ?? 0, displayWidth(cell(profile).text));
        segment.widths.forEach((width, i) => {
          widths[i + 1] = Math.max(widths[i + 1] ?? 0, width);
        });
      }
      return { kind: 'list', list, starts };
    }),
  );
}

/** A tenant's row in a merged list: its profile first. */
export function profileRow(profile: string, row: readonly Cell[]): Cell[] {
  return [cell(profile), ...row];
}

/** A tenant's detail view in the merged view: a `profile` row first. */
export function profileDetail(profile: string, spec: DetailTable): DetailTable {
  return { ...spec, rows: [['profile', cell(profile)], ...spec.rows] };
}
