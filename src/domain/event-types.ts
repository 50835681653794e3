import { editDistance } from './edit-distance.js';
/** The 25 event types of the spec (values of `type` and of the query `event_type`), in its order. */
export const EVENT_TYPES = [
  'connection.created',
  'connection.deleted',
  'connection.updated',
  'group.created',
  'group.deleted',
  'group.updated',
  'group.member.added',
  'group.member.deleted',
  'group.role.assigned',
  'group.role.deleted',
  'organization.created',
  'organization.deleted',
  'organization.updated',
  'organization.connection.added',
  'organization.connection.removed',
  'organization.connection.updated',
  'organization.group.role.assigned',
  'organization.group.role.deleted',
  'organization.member.added',
  'organization.member.deleted',
  'organization.member.role.assigned',
  'organization.member.role.deleted',
  'user.created',
  'user.deleted',
  'user.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type EventGroup = 'connection' | 'group' | 'organization' | 'user';

const TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: string): value is EventType {
  return TYPE_SET.has(value);
}

export function eventGroup(type: string): EventGroup | undefined {
  const group = type.slice(0, type.indexOf('.'));
  return group === 'connection' || group === 'group' || group === 'organization' || group === 'user'
    ? group
    : undefined;
}

/**
 * What to suggest for a name that is not an event type: every type of a group named alone (`user` or `user.*` →
 * `user.created,user.deleted,user.updated`, ready for `--type`), else the closest type when it is close enough
 * (`user.create` → `user.created`), else nothing.
 */
export function suggestEventTypes(input: string): string | undefined {
  const text = input.trim().toLowerCase();
  const group = text.replace(/\.?\*?$/, '');
  const members = EVENT_TYPES.filter((type) => type.startsWith(`${group}.`));
  if (group !== '' && members.length > 0) return members.join(',');
  let best: EventType = EVENT_TYPES[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const type of EVENT_TYPES) {
    const distance = editDistance(text, type);
    if (distance < bestDistance) {
      best = type;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(3, Math.floor(text.length / 4)) ? best : undefined;
}
