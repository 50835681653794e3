import { EVENT_TYPES, type EventGroup, eventGroup } from '../domain/event-types.js';
import { neutralize } from '../text/sanitize.js';
import { paint, type Style } from './color.js';
import { utcClock, utcDay } from './dates.js';
import { clip, displayWidth } from './text-width.js';

const GROUP_COLOR: Record<EventGroup, Style> = {
  connection: 'cyan',
  group: 'magenta',
  organization: 'blue',
  user: 'green',
};
/** `evt_` and 16 letters and digits (api-notes): the id column's least width. */
const ID_WIDTH = 20;
/**
 * The id column grows to the widest id seen, up to this (`evt_` and a UUID): a longer id is whole all the same, and
 * moves the summary of its own line only (docs/decisions/2026-11-28-event-line-columns.md).
 */
const ID_WIDTH_MAX = 40;
const TIME_WIDTH = 8;
const GAP = '  ';
/** Below this much room for the summary, an event takes two lines instead of one. */
const SUMMARY_MIN = 10;
/** A summary is a few words: longer text from the service is cut before it is kept. */
const SUMMARY_MAX = 300;

/** What an event line shows, neutralised: small enough to keep a screenful for a redraw. */
export interface EventRow {
  /** Milliseconds since the epoch; undefined when the event has no readable time. */
  time: number | undefined;
  type: string;
  id: string;
  summary: string;
  /** The status the app acknowledged the event with (`events tail --forward-to`). */
  delivered?: number | undefined;
}

function padding(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text)));
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
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
function eventSummary(payload: Record<string, unknown>): string {
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

/**
 * The parts of an event a line shows, every service string neutralised; `delivered`: the app's status. `whole`: the
 * summary as long as it is (accessible mode, whose lines are never cut: the row is printed at once, not kept).
 */
export function eventRow(payload: Record<string, unknown>, delivered?: number, whole = false): EventRow {
  const event = record(payload.event);
  const ms = typeof event?.time === 'string' ? Date.parse(event.time) : Number.NaN;
  const summary = neutralize(eventSummary(payload));
  return {
    time: Number.isNaN(ms) ? undefined : ms,
    type: neutralize(String(payload.type)),
    id: neutralize(text(event?.id) ?? '-'),
    summary: whole ? summary : clip(summary, SUMMARY_MAX),
    delivered,
  };
}

/** The widest of `types` (every type when none is given): the most the type column of a line grows to. */
export function typeColumnWidth(types: readonly string[]): number {
  return Math.max(...(types.length > 0 ? types : EVENT_TYPES).map((t) => t.length));
}

export interface EventLineOptions {
  color: boolean;
  /** The type column's widest (`typeColumnWidth` of the filter); it grows to the widest type seen, up to this. */
  typeWidth: number;
  /** Now, for the day heading's "(today)". */
  now(): number;
  /** The day headings (not with --no-headers). */
  headings?: boolean | undefined;
  /**
   * Accessible mode: read aloud a line at a time, so words instead of drawing: `Events of 2025-06-04 UTC:` for the
   * day heading, commas for the summary's ` · `; and nothing cut, whatever the width (a braille display pans along a
   * line, a cut loses what it would have read).
   */
  words?: boolean | undefined;
}

/**
 * A formatter of event lines, all in UTC as tables are: `time  type  id  summary` on one line where the summary has
 * room, else `time  type` over `id  summary`, so that nothing wraps and the id is never cut (it is copied). It
 * remembers the day of the last event: a heading line `── 2025-06-02 UTC ──` goes before the first event of each day
 * (`(today)` on today's). `width` is the terminal's (Infinity: nothing is cut); lines keep clear of its last column.
 */
export function eventLineFormatter(options: EventLineOptions): (row: EventRow, width: number) => string {
  const { color } = options;
  let lastDay: string | undefined;
  // As wide as the widest type shown so far, at most the filter's widest: 33 columns for every type would leave the
  // summary little room, though most types are short. The id column the same way, so that ids of two lengths (two
  // tenants, two services) keep the summaries in line.
  let typeWidth = 0;
  let idColumn = ID_WIDTH;
  return (shown, width) => {
    const row = options.words ? { ...shown, summary: shown.summary.replaceAll(' · ', ', ') } : shown;
    typeWidth = Math.min(options.typeWidth, Math.max(typeWidth, displayWidth(row.type)));
    idColumn = Math.min(ID_WIDTH_MAX, Math.max(idColumn, displayWidth(row.id)));
    let out = '';
    if (row.time !== undefined && options.headings !== false) {
      const day = utcDay(row.time);
      if (day !== lastDay) {
        lastDay = day;
        const today = day === utcDay(options.now()) ? ' (today)' : '';
        const heading = options.words ? `Events of ${day} UTC${today}:` : `── ${day} UTC${today} ──`;
        out += `${paint('gray', heading, color)}\n`;
      }
    }
    const room = options.words ? Number.POSITIVE_INFINITY : width - 1;
    const time = paint('gray', row.time === undefined ? '--:--:--' : utcClock(row.time), color);
    const group = eventGroup(row.type);
    const typeCode: Style = group ? GROUP_COLOR[group] : 'white';
    const idWidth = Math.max(idColumn, displayWidth(row.id));
    // The app's acknowledgement stands before the summary: `[200]`.
    const badge = row.delivered === undefined ? '' : `[${row.delivered}]`;
    const badged = (summary: string) =>
      `${badge === '' ? '' : `${GAP}${paint('green', badge, color)}`}${summary === '' ? '' : `${GAP}${summary}`}`;
    const oneLine = TIME_WIDTH + GAP.length + typeWidth + GAP.length + idWidth + GAP.length + badge.length;
    if (room - oneLine >= SUMMARY_MIN) {
      const summary = clip(row.summary, room - oneLine - (badge === '' ? 0 : GAP.length));
      // The service names types: one longer than the column is cut to it, so the columns after it stay in place
      // (in accessible mode it is whole, and the columns after it move).
      const typeText = options.words ? row.type : clip(row.type, typeWidth);
      const type = paint(typeCode, typeText, color) + padding(typeText, typeWidth);
      const last = summary === '' && badge === '';
      const id = last ? paint('gray', row.id, color) : paint('gray', row.id, color) + padding(row.id, idWidth);
      return `${out}${time}${GAP}${type}${GAP}${id}${badged(summary)}\n`;
    }
    // Two lines: the type as far as the terminal allows, then the id whole (cut only if it alone is wider).
    const indent = ' '.repeat(TIME_WIDTH + GAP.length);
    const type = clip(row.type, room - indent.length);
    const id = clip(row.id, room - indent.length);
    const summaryRoom =
      room - indent.length - displayWidth(id) - GAP.length - (badge === '' ? 0 : badge.length + GAP.length);
    const summary = summaryRoom > 0 ? clip(row.summary, summaryRoom) : '';
    const second = `${indent}${paint('gray', id, color)}${badged(summary)}`;
    return `${out}${time}${GAP}${paint(typeCode, type, color)}\n${second}\n`;
  };
}
