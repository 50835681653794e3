import {
  type ConfigurationKind,
  type ConfigValue,
  countChanges,
  type Difference,
} from '../domain/tenant-configuration.js';
import { neutralize } from '../text/sanitize.js';
import { cell, type ListTable } from './table-model.js';

/** What a side had of a kind it could not compare: a 403's code, per side. */
export interface UnavailableKind {
  kind: ConfigurationKind;
  left?: string;
  right?: string;
}

const MARKS = { added: '+', removed: '-', changed: '~' } as const;

/** A field's value as one line: JSON text, service text neutralised; nothing as `(none)`. */
export function valueText(value: ConfigValue | null): string {
  return value === null ? '(none)' : neutralize(JSON.stringify(value));
}

function countsText(differences: readonly Difference[]): string {
  const { added, removed, changed } = countChanges(differences);
  return `${added} added, ${removed} removed, ${changed} changed`;
}

/**
 * The differences for a person (cli.md, "Compare tenants"): grouped by kind, each kind with its counts; `+` what only
 * the right has, `-` what only the left has, `~` what changed, each of its fields as `left → right`.
 */
export function differencesText(
  kinds: readonly ConfigurationKind[],
  differences: readonly Difference[],
  unavailable: readonly UnavailableKind[] = [],
): string {
  const lines: string[] = [];
  for (const kind of kinds) {
    const gone = unavailable.find((u) => u.kind === kind);
    if (gone) {
      const sides = [
        ...(gone.left === undefined ? [] : [`on the left (${neutralize(gone.left)})`]),
        ...(gone.right === undefined ? [] : [`on the right (${neutralize(gone.right)})`]),
      ];
      lines.push(`${kind}: unavailable ${sides.join(' and ')}; not compared`);
      continue;
    }
    const ofKind = differences.filter((d) => d.kind === kind);
    if (ofKind.length === 0) {
      lines.push(`${kind}: alike`);
      continue;
    }
    lines.push(`${kind}: ${countsText(ofKind)}`);
    for (const d of ofKind) {
      lines.push(`  ${MARKS[d.change]} ${neutralize(d.key)}`);
      for (const f of d.fields)
        lines.push(`      ${neutralize(f.field)}: ${valueText(f.left)} → ${valueText(f.right)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `-o table`: a row per difference, its kind, key, change and fields. */
export function differencesTable(differences: readonly Difference[]): ListTable {
  return {
    kind: 'list',
    columns: [
      { name: 'kind', fit: 'key' },
      { name: 'key', fit: 'key' },
      { name: 'change', fit: 'key' },
      { name: 'fields', fit: 'text', rank: 1 },
    ],
    rows: differences.map((d) => [
      cell(d.kind),
      cell(d.key),
      cell(d.change, d.change === 'added' ? 'green' : d.change === 'removed' ? 'red' : 'yellow'),
      cell(
        d.fields.length === 0
          ? undefined
          : d.fields.map((f) => `${f.field}: ${JSON.stringify(f.left)} → ${JSON.stringify(f.right)}`).join('; '),
      ),
    ]),
  };
}

/** One row per tenant and kind against a baseline: the counts of added, removed and changed. */
export interface AgainstRow {
  kind: ConfigurationKind;
  added: number | undefined;
  removed: number | undefined;
  changed: number | undefined;
  /** A kind not compared: unavailable on a side. */
  note?: string;
}

/** A tenant's rows against the baseline (the loop adds the PROFILE column). */
export function againstTable(rows: readonly AgainstRow[]): ListTable {
  const n = (v: number | undefined) => (v === undefined ? undefined : String(v));
  return {
    kind: 'list',
    columns: [
      { name: 'kind', fit: 'key' },
      { name: 'added', fit: 'key' },
      { name: 'removed', fit: 'key' },
      { name: 'changed', fit: 'key' },
      { name: 'note', fit: 'text', rank: 1 },
    ],
    rows: rows.map((r) => [cell(r.kind), cell(n(r.added)), cell(n(r.removed)), cell(n(r.changed)), cell(r.note)]),
  };
}
