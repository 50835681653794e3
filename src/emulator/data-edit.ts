import type { SeedData } from './seed-data.js';

/**
 * `POST /__emulator/data`: an edit of the seeded data, to make two tenants differ on purpose (`svcadm diff`). One
 * item, found by its id: fields set (each checked as the service would send it), or the item removed. Live events
 * never edit the data; only this route (and `POST /reset`, which brings the seed back) does.
 */
export interface DataEdit {
  kind: 'policies' | 'connections' | 'provisionings';
  id: string;
  set?: Record<string, unknown>;
  remove?: boolean;
}

const STRING_FIELDS: Readonly<Record<DataEdit['kind'], readonly string[]>> = {
  policies: ['consumer_selector'],
  connections: ['name', 'display_name', 'strategy'],
  provisionings: ['connection_name', 'strategy', 'synchronize_groups'],
};

function checkedSet(kind: DataEdit['kind'], set: Record<string, unknown>): string | undefined {
  for (const [field, value] of Object.entries(set)) {
    if (STRING_FIELDS[kind].includes(field)) {
      if (typeof value !== 'string' || value.length === 0 || value.length > 512) {
        return `set.${field} must be a string of 1 to 512 characters`;
      }
    } else if (kind === 'policies' && field === 'configuration') {
      const c = value as { action?: unknown; limit?: unknown; redirect_uri?: unknown } | null;
      if (typeof c !== 'object' || c === null || !['allow', 'block', 'log', 'redirect'].includes(String(c.action))) {
        return 'set.configuration must be {"action": allow|block|log|redirect, "limit"?, "redirect_uri"?}';
      }
      if (c.limit !== undefined && (typeof c.limit !== 'number' || !Number.isInteger(c.limit) || c.limit < 0)) {
        return 'set.configuration.limit must be an integer of 0 or more';
      }
    } else if (kind === 'provisionings' && field === 'synchronize_automatically') {
      if (typeof value !== 'boolean') return 'set.synchronize_automatically must be true or false';
    } else {
      return `set.${field} is not a field the emulator edits on ${kind}`;
    }
  }
  return undefined;
}

/** The edit the body asks for, or why it is refused. */
export function validateDataEdit(input: Record<string, unknown>): DataEdit | string {
  const { kind, id, set, remove } = input;
  if (kind !== 'policies' && kind !== 'connections' && kind !== 'provisionings') {
    return 'kind must be policies, connections or provisionings';
  }
  if (typeof id !== 'string' || id === '') return 'id must be the id of an item of that kind';
  if (remove !== undefined && remove !== true) return 'remove must be true when given';
  if (remove === true && set !== undefined) return 'give set or remove, not both';
  if (remove !== true) {
    if (typeof set !== 'object' || set === null || Array.isArray(set)) return 'set must be an object of fields';
    const why = checkedSet(kind, set as Record<string, unknown>);
    if (why !== undefined) return why;
    return { kind, id, set: set as Record<string, unknown> };
  }
  return { kind, id, remove: true };
}

/** Applies an edit; false when no item has that id. */
export function applyDataEdit(data: SeedData, edit: DataEdit): boolean {
  const set = edit.set ?? {};
  if (edit.kind === 'policies') {
    const policy = data.policies.get(edit.id);
    if (!policy) return false;
    if (edit.remove) data.policies.delete(edit.id);
    else Object.assign(policy, set);
    return true;
  }
  if (edit.kind === 'connections') {
    const connection = data.connections.get(edit.id);
    if (!connection) return false;
    if (edit.remove) data.connections.delete(edit.id);
    else {
      if (typeof set.name === 'string') connection.name = set.name;
      if (typeof set.display_name === 'string') connection.displayName = set.display_name;
      if (typeof set.strategy === 'string') connection.strategy = set.strategy;
    }
    return true;
  }
  const at = data.provisionings.findIndex((p) => p.connection_id === edit.id);
  const provisioning = data.provisionings[at];
  if (!provisioning) return false;
  if (edit.remove) data.provisionings.splice(at, 1);
  else Object.assign(provisioning, set);
  return true;
}
