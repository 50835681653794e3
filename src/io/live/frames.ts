import { paint } from '../../render/color.js';
import { colorJson, jsonDocument } from '../../render/json.js';
import { groupedCount } from '../../render/progress-text.js';
import { clip, displayWidth } from '../../render/text-width.js';
import { neutralize } from '../../text/sanitize.js';
import type { LiveEntry, LiveSnapshot } from './model.js';

const SEPARATOR = ' · ';
/** A type or filter in the footer is cut, at the least, to this many columns. */
const TYPE_MIN = 20;

/** Pieces joined by ` · `, each whole or not at all, within `room` columns: the footer never wraps. */
export function fitParts(parts: readonly string[], room: number): string {
  let line = '';
  for (const part of parts) {
    const piece = line === '' ? part : `${SEPARATOR}${part}`;
    if (displayWidth(line) + displayWidth(piece) > room) break;
    line += piece;
  }
  return line;
}

/** The footer's second line: what is in force and the keys that apply now. */
export function hintLine(s: LiveSnapshot<unknown>): string {
  const room = s.columns - 1;
  switch (s.mode) {
    case 'filter':
      // Typed or pasted, the text is shown as the service's is: a control or a bidi override escaped, never run.
      return clip(`/${neutralize(s.draft)}▏ Enter apply · Esc clear`, room);
    case 'types': {
      const keys = ['←/→ choose', 'Enter only this', 'Esc all'];
      const count = ` (${s.pick + 1}/${s.types.length})`;
      // The service names types: one too long is cut so that the keys still show (to TYPE_MIN at the least).
      const typeRoom =
        room - 'type '.length - count.length - displayWidth(keys.map((k) => `${SEPARATOR}${k}`).join(''));
      const type = clip(s.types[s.pick] ?? '', Math.max(TYPE_MIN, typeRoom));
      return fitParts([`type ${type}${count}`, ...keys], room);
    }
    default: {
      const parts: string[] = [];
      if (s.paused) {
        parts.push(`paused: ${groupedCount(s.held)} held`);
        if (s.dropped > 0) parts.push(`${groupedCount(s.dropped)} not shown`);
      }
      // What is in force takes at most half the line each, so that the keys still show.
      const half = Math.max(TYPE_MIN, Math.floor(room / 2));
      if (s.filter !== '') parts.push(clip(`filter "${neutralize(s.filter)}"`, half));
      if (s.type !== undefined) parts.push(clip(`only ${s.type}`, half));
      if (s.filter !== '' || s.type !== undefined) parts.push('Esc clear');
      parts.push(s.paused ? 'p resume' : 'p pause', '/ filter', 't type', 'i inspect', 'q quit');
      return fitParts(parts, room);
    }
  }
}

/**
 * A frame cut to one line short of the screen: a frame as tall as the screen could not be drawn over in place
 * (the terminal scrolls it), and the view never clears the screen to draw one (docs/decisions/2026-11-25-live-view-never-clears.md).
 */
export function withinScreen(lines: readonly string[], rows: number): readonly string[] {
  return lines.length < rows ? lines : lines.slice(0, Math.max(0, rows - 1));
}

/** The count of each event type, for the last lines: `  3  user.created`. */
export function countLines(counts: ReadonlyArray<readonly [string, number]>, columns: number): string[] {
  const width = Math.max(1, ...counts.map(([, n]) => groupedCount(n).length));
  return counts.map(([type, n]) => clip(`  ${groupedCount(n).padStart(width)}  ${type}`, columns - 1));
}

/** The selected event's payload, indented and neutralised: parsed once per selection. */
export function payloadLines(entry: LiveEntry<unknown> | undefined): string[] {
  if (!entry) return [];
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(entry.json).toString('utf8'));
  } catch {
    return ['(the payload is not JSON)'];
  }
  return jsonDocument(value).split('\n').slice(0, -1);
}

/**
 * The inspector, one line short of the screen (so that Ink never takes it for a full screen to clear): a title, a
 * window of the recent events around the selected one, a rule, and as much of the selected payload as fits.
 */
export function inspectorLines(s: LiveSnapshot<unknown>, payload: readonly string[], color: boolean): string[] {
  const room = s.columns - 1;
  const height = Math.max(1, s.rows - 1);
  const n = s.ring.length;
  const title = fitParts([`event ${s.selected + 1} of ${n}`, '↑/↓ select', 'PgUp/PgDn scroll', 'Esc back'], room);
  const listHeight = Math.min(n, Math.max(1, Math.floor((height - 2) / 3)));
  const first = Math.min(Math.max(0, s.selected - Math.floor(listHeight / 2)), n - listHeight);
  const list: string[] = [];
  for (let i = first; i < first + listHeight; i++) {
    const entry = s.ring[i];
    if (!entry) continue;
    const line = clip(`${i === s.selected ? '›' : ' '} ${entry.text}`, room);
    list.push(paint('inverse', line, color && i === s.selected));
  }
  const bodyHeight = Math.max(0, height - 2 - list.length);
  const scroll = Math.min(s.scroll, Math.max(0, payload.length - bodyHeight));
  const body = payload.slice(scroll, scroll + bodyHeight).map((line) => {
    const shown = clip(line, room);
    return color ? colorJson(shown) : shown;
  });
  const more = payload.length - scroll - body.length;
  const rule = clip(`${'─'.repeat(2)} payload${more > 0 ? ` (${more} more lines)` : ''} ${'─'.repeat(room)}`, room);
  return [title, ...list, rule, ...body];
}
