import { type EventGroup, eventGroup } from '../api/event-types.js';
import { neutralize } from './sanitize.js';

const TYPE_WIDTH = 33; // organization.member.role.assigned
const ID_WIDTH = 16;

const GROUP_COLOR: Record<EventGroup, number> = { connection: 36, group: 35, organization: 34, user: 32 };

function paint(code: number, text: string, color: boolean): string {
  return color ? `\x1b[${code}m${text}\x1b[39m` : text;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function clip(value: string, width: number): string {
  return value.length > width ? `${value.slice(0, Math.max(0, width - 1))}…` : value;
}

function userText(user: Record<string, unknown> | undefined): string | undefined {
  const email = text(user?.email);
  const name = text(user?.name);
  const id = text(user?.user_id) ?? text(user?.id);
  if (email && name && name !== email) return `${email} (${name})`;
  return email ?? name ?? id;
}

function named(value: unknown): string | undefined {
  const r = record(value);
  return text(r?.name) ?? text(r?.id);
}

/** A few words on what the event is about: the user, connection, group or organization, and what joined it. */
export function eventSummary(payload: Record<string, unknown>): string {
  const event = record(payload.event);
  const object = record(record(event?.data)?.object);
  if (!object) return '';
  const type = String(payload.type);
  const group = eventGroup(type);
  const parts: Array<string | undefined> = [];
  if (group === 'user') parts.push(userText(object));
  else if (group === 'connection') {
    const strategy = text(object.strategy);
    parts.push(`${named(object) ?? ''}${strategy ? ` (${strategy})` : ''}`);
  } else if (group === 'group') {
    parts.push(named(object.group) ?? named(object));
    const member = record(object.member);
    if (member) parts.push(text(member.id));
    if (object.role) parts.push(named(object.role));
  } else if (group === 'organization') {
    parts.push(named(object.organization) ?? named(object));
    if (object.user) parts.push(userText(record(object.user)));
    if (object.connection) parts.push(named(object.connection));
    if (object.group) parts.push(named(object.group));
    if (object.role) parts.push(named(object.role));
  }
  return parts.filter((p): p is string => p !== undefined && p !== '').join(' · ');
}

function clockOf(time: unknown): string {
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  if (Number.isNaN(ms)) return '--:--:--';
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * One event as one terminal line: time, type coloured by group, id, the status the forwarding app acknowledged it
 * with (`events tail --forward-to`), summary; every service string neutralised.
 */
export function formatEventLine(
  payload: Record<string, unknown>,
  color: boolean,
  width: number,
  acknowledged?: { status: number },
): string {
  const event = record(payload.event);
  const type = neutralize(String(payload.type));
  const group = eventGroup(type);
  const id = clip(neutralize(text(event?.id) ?? '-'), ID_WIDTH);
  const badge = acknowledged ? `[${acknowledged.status}]  ` : '';
  const head = `${clockOf(event?.time)}  ${type.padEnd(TYPE_WIDTH)}  ${id.padEnd(ID_WIDTH)}  ${badge}`;
  const room = Math.max(10, width - 1 - head.length);
  const summary = clip(neutralize(eventSummary(payload)), room);
  if (!color) return `${head}${summary}`.trimEnd();
  const typeText = paint(group ? GROUP_COLOR[group] : 37, type.padEnd(TYPE_WIDTH), true);
  const badgeText = badge === '' ? '' : paint(32, badge, true);
  return `${paint(90, clockOf(event?.time), true)}  ${typeText}  ${paint(90, id.padEnd(ID_WIDTH), true)}  ${badgeText}${summary}`.trimEnd();
}
