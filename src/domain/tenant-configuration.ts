/**
 * A tenant's configuration as `svcadm snapshot` keeps it and `svcadm diff` compares it (cli.md, "Compare tenants"):
 * the kinds, the natural key of each (never an id: ids differ between tenants), the allow-list of the fields a
 * snapshot holds (docs/decisions/2026-11-28-snapshot-allow-lists.md), and the comparison itself, pure.
 */

/** The kinds a snapshot holds, in the order files and differences are listed. */
export const CONFIGURATION_KINDS = ['policies', 'provisionings', 'connections', 'permissions'] as const;
export type ConfigurationKind = (typeof CONFIGURATION_KINDS)[number];

/** A JSON value as a snapshot holds it: objects with their keys in code-unit order. */
export type ConfigValue = string | number | boolean | null | ConfigValue[] | { [field: string]: ConfigValue };
export type ConfigItem = { [field: string]: ConfigValue };

/** How a field is kept: a plain value (a scalar, or a list of scalars), an object's allowed fields, or a list of them. */
type FieldSpec = 'value' | { readonly fields: Readonly<Record<string, FieldSpec>> } | { readonly list: FieldSpec };

/**
 * What a snapshot keeps of each kind: the configuration and nothing else. Left out on purpose: ids that differ
 * between tenants (`id`, `connection_id`, enabled clients, a role's `source_id`), times and synchronisation statuses
 * (VOLATILE_FIELDS), and a connection's `options`, where the real service keeps secrets.
 */
const ALLOW_LISTS: Readonly<Record<ConfigurationKind, Readonly<Record<string, FieldSpec>>>> = {
  policies: {
    resource: 'value',
    consumer: 'value',
    consumer_selector: 'value',
    configuration: { fields: { action: 'value', limit: 'value', redirect_uri: 'value' } },
  },
  provisionings: {
    connection_name: 'value',
    strategy: 'value',
    mapping: { list: { fields: { svc: 'value', idp: 'value' } } },
    synchronize_automatically: 'value',
    synchronize_groups: 'value',
  },
  connections: {
    name: 'value',
    display_name: 'value',
    strategy: 'value',
    realms: 'value',
    is_domain_connection: 'value',
  },
  permissions: {
    resource_server_identifier: 'value',
    permission_name: 'value',
    resource_server_name: 'value',
    description: 'value',
    sources: { list: { fields: { source_type: 'value', source_name: 'value' } } },
  },
};

/**
 * The fields that change without anyone changing the configuration, per kind: never kept, never compared (the
 * allow-lists leave them out; a test holds the two apart).
 */
export const VOLATILE_FIELDS: Readonly<Record<ConfigurationKind, readonly string[]>> = {
  policies: ['id', 'created_at', 'updated_at'],
  provisionings: [
    'connection_id',
    'created_at',
    'updated_at',
    'last_synchronization_at',
    'last_synchronization_status',
    'last_synchronization_error',
  ],
  connections: ['id', 'enabled_clients', 'options'],
  permissions: ['sources.source_id'],
};

/** The longest string a snapshot keeps of a field: the service's are far shorter; a longer one is cut, and says so. */
export const CONFIG_STRING_MAX = 4096;

function keptScalar(value: unknown): ConfigValue | undefined {
  if (typeof value === 'string') {
    return value.length > CONFIG_STRING_MAX ? `${value.slice(0, CONFIG_STRING_MAX)}…(cut)` : value;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean' || value === null) return value;
  return undefined;
}

function canonicalText(value: ConfigValue): string {
  return JSON.stringify(value);
}

function kept(value: unknown, spec: FieldSpec): ConfigValue | undefined {
  if (spec === 'value') {
    if (!Array.isArray(value)) return keptScalar(value);
    const list = value.map(keptScalar).filter((v): v is ConfigValue => v !== undefined);
    return list;
  }
  if ('fields' in spec) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return keptFields(value as Record<string, unknown>, spec.fields);
  }
  if (!Array.isArray(value)) return undefined;
  // A list of objects has no order of meaning (a mapping, a permission's sources): sorted, so that the same set is
  // the same text.
  const items = value.map((v) => kept(v, spec.list)).filter((v): v is ConfigValue => v !== undefined);
  return items
    .map((item) => [canonicalText(item), item] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, item]) => item);
}

/** Each allow-list's fields in code-unit order, sorted once: an item's keys are written in this order. */
const SORTED_FIELDS = new WeakMap<Readonly<Record<string, FieldSpec>>, Array<[string, FieldSpec]>>();

function sortedFields(fields: Readonly<Record<string, FieldSpec>>): Array<[string, FieldSpec]> {
  let sorted = SORTED_FIELDS.get(fields);
  if (sorted === undefined) {
    sorted = Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1));
    SORTED_FIELDS.set(fields, sorted);
  }
  return sorted;
}

function keptFields(value: Record<string, unknown>, fields: Readonly<Record<string, FieldSpec>>): ConfigItem {
  const out: ConfigItem = {};
  for (const [name, spec] of sortedFields(fields)) {
    const field = kept(value[name], spec);
    if (field !== undefined) out[name] = field;
  }
  return out;
}

/** An item as the service sent it → what a snapshot keeps of it: the allowed fields, keys in order. */
export function configurationOf(kind: ConfigurationKind, item: unknown): ConfigItem {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return {};
  return keptFields(item as Record<string, unknown>, ALLOW_LISTS[kind]);
}

function text(value: ConfigValue | undefined): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : canonicalText(value);
}

/**
 * The natural key of an item, one string (docs/decisions/2026-11-28-natural-keys.md): a policy's resource, consumer
 * and selector (a `client_id:` selector names one client, so it matches only the same id), a provisioning's
 * connection name, a connection's name, a permission's API identifier and name.
 */
export function naturalKey(kind: ConfigurationKind, item: ConfigItem): string {
  switch (kind) {
    case 'policies':
      return `${text(item.resource)} ${text(item.consumer)} ${text(item.consumer_selector)}`;
    case 'provisionings':
      return text(item.connection_name);
    case 'connections':
      return text(item.name);
    case 'permissions':
      return `${text(item.resource_server_identifier)} ${text(item.permission_name)}`;
  }
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Items keyed, in key order; a key met again gets ` #2`, ` #3`… in the order met, so that nothing is lost. */
export function keyedItems(kind: ConfigurationKind, items: readonly ConfigItem[]): Array<[string, ConfigItem]> {
  const keyed = items.map((item) => [naturalKey(kind, item), item] as [string, ConfigItem]);
  keyed.sort(([a, x], [b, y]) => byCodeUnits(a, b) || byCodeUnits(canonicalText(x), canonicalText(y)));
  const seen = new Map<string, number>();
  return keyed.map(([key, item]) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return [n === 1 ? key : `${key} #${n}`, item];
  });
}

/** A kind's items sorted by natural key, as a snapshot file lists them. */
export function sortedItems(kind: ConfigurationKind, items: readonly ConfigItem[]): ConfigItem[] {
  return keyedItems(kind, items).map(([, item]) => item);
}

export interface FieldDifference {
  /** A dotted path into the item (`configuration.limit`); a list is one value. */
  field: string;
  left: ConfigValue | null;
  right: ConfigValue | null;
}

export type Change = 'added' | 'removed' | 'changed';

export interface Difference {
  kind: ConfigurationKind;
  key: string;
  change: Change;
  /** Each field that differs; empty for an item only one side has. */
  fields: FieldDifference[];
  /** The whole item, for an item only one side has. */
  item?: ConfigItem;
}

/** Every leaf of an item by dotted path; a list is a leaf. */
function leaves(value: ConfigItem, prefix = '', out = new Map<string, ConfigValue>()): Map<string, ConfigValue> {
  for (const [name, field] of Object.entries(value)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    if (typeof field === 'object' && field !== null && !Array.isArray(field)) leaves(field, path, out);
    else out.set(path, field);
  }
  return out;
}

/** Whether `path` is an ignored field or beneath one. */
function ignored(path: string, ignore: ReadonlySet<string>): boolean {
  if (ignore.size === 0) return false;
  if (ignore.has(path)) return true;
  for (let at = path.indexOf('.'); at >= 0; at = path.indexOf('.', at + 1)) {
    if (ignore.has(path.slice(0, at))) return true;
  }
  return false;
}

function withoutIgnored(item: ConfigItem, ignore: ReadonlySet<string>, prefix = ''): ConfigItem {
  if (ignore.size === 0) return item;
  const out: ConfigItem = {};
  for (const [name, field] of Object.entries(item)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    if (ignored(path, ignore)) continue;
    out[name] =
      typeof field === 'object' && field !== null && !Array.isArray(field)
        ? withoutIgnored(field, ignore, path)
        : field;
  }
  return out;
}

/**
 * The differences between a kind's items on the left and on the right, matched by natural key, in key order:
 * `removed` for what only the left has, `added` for what only the right has, `changed` with each field that differs
 * (`ignore`d fields, and those beneath them, left out).
 */
export function compareItems(
  kind: ConfigurationKind,
  left: readonly ConfigItem[],
  right: readonly ConfigItem[],
  ignore: ReadonlySet<string> = new Set(),
): Difference[] {
  const rights = new Map(keyedItems(kind, right));
  const out: Difference[] = [];
  for (const [key, l] of keyedItems(kind, left)) {
    const r = rights.get(key);
    if (r === undefined) {
      out.push({ kind, key, change: 'removed', fields: [], item: withoutIgnored(l, ignore) });
      continue;
    }
    rights.delete(key);
    const lv = leaves(l);
    const rv = leaves(r);
    const paths = [...new Set([...lv.keys(), ...rv.keys()])].filter((p) => !ignored(p, ignore)).sort(byCodeUnits);
    const fields: FieldDifference[] = [];
    for (const path of paths) {
      const a = lv.get(path);
      const b = rv.get(path);
      if (a !== undefined && b !== undefined && canonicalText(a) === canonicalText(b)) continue;
      fields.push({ field: path, left: a ?? null, right: b ?? null });
    }
    if (fields.length > 0) out.push({ kind, key, change: 'changed', fields });
  }
  for (const [key, r] of rights) out.push({ kind, key, change: 'added', fields: [], item: withoutIgnored(r, ignore) });
  return out.sort((a, b) => byCodeUnits(a.key, b.key) || byCodeUnits(a.change, b.change));
}

/** The counts of one kind's differences. */
export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
}

export function countChanges(differences: readonly Difference[]): ChangeCounts {
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const d of differences) counts[d.change]++;
  return counts;
}
