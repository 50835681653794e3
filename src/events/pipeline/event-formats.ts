import type { Clock } from '../../clock.js';
import type { StreamFormats } from '../../io/stream-types.js';
import type { EventRow } from '../../render/event-line.js';
import type { TailStatus } from '../../render/tail-view.js';
import type { StreamEvent } from '../stream/subscription.js';
import type { TenantEvent } from './merged-source.js';
import type { ShownItem } from './pipeline.js';

/** An event as shown: with the status the app acknowledged it with when forwarding. */
export type EventItem = ShownItem<StreamEvent>;

/** How an event is printed: its checked NDJSON line, the payload as a value, or event lines for people. */
export function eventFormats(clock: Clock, types: readonly string[]): StreamFormats<EventItem, TailStatus, EventRow> {
  return {
    json: (item) => item.event.line,
    value: (item) => item.event.payload(),
    view: async () => {
      const [{ eventLineFormatter, eventRow, typeColumnWidth }, { statusLine }] = await Promise.all([
        import('../../render/event-line.js'),
        import('../../render/tail-view.js'),
      ]);
      const typeWidth = typeColumnWidth(types);
      return {
        row: (item, whole) => eventRow(item.event.payload(), item.acknowledged?.status, whole),
        lines: (color, headings, words) =>
          eventLineFormatter({ color, typeWidth, headings, words, now: () => clock.now() }),
        status: statusLine,
        kind: (row) => row.type,
        text: (row) => `${row.type} ${row.id} ${row.summary}`,
      };
    },
  };
}

/** A merged tail's event as shown. */
type TenantItem = ShownItem<TenantEvent>;

/** An event line of a merged tail, with the profile it came from. */
interface TenantRow extends EventRow {
  readonly profile: string;
}

const LINE_START = Buffer.from('{"profile":');
const EVENT_KEY = Buffer.from(',"event":');
const LINE_END = Buffer.from('}\n');

/** The usual line (pieces ending in a line break) inside `{"profile":…,"event":…}`, without a copy of the line. */
function tenantLine(profile: string, line: readonly Uint8Array[]): Uint8Array[] {
  const pieces: Uint8Array[] = [LINE_START, Buffer.from(JSON.stringify(profile)), EVENT_KEY];
  const last = line.length - 1;
  line.forEach((piece, i) => {
    pieces.push(i === last && piece[piece.length - 1] === 0x0a ? piece.subarray(0, piece.length - 1) : piece);
  });
  pieces.push(LINE_END);
  return pieces;
}

/**
 * The PROFILE column of a merged tail's lines for people, at most: as wide as the longest name up to this, so that at
 * 80 columns an event keeps one line and its id whole (docs/decisions/2026-11-28-event-line-columns.md).
 */
export const PROFILE_COLUMN_MAX = 16;
const GAP = '  ';

/**
 * A profile name in a column of `width`: padded, or cut in its middle (the names of one set of tenants often differ
 * only at their end: `acme-prod-eu`, `acme-prod-us`). Names are ASCII letters, digits, `-` and `_`.
 */
function profileCell(name: string, width: number): string {
  if (name.length <= width) return name.padEnd(width);
  const end = Math.floor((width - 1) / 2);
  return `${name.slice(0, width - 1 - end)}…${name.slice(name.length - end)}`;
}

/**
 * How a merged tail prints: `{"profile","event"}` lines; the value `{profile, event}` for --query and YAML; in the
 * human views a PROFILE column first (its names whole in accessible mode, else cut to PROFILE_COLUMN_MAX), which the
 * live view's `/` filter searches with the rest, whole.
 */
export function mergedFormats(
  clock: Clock,
  types: readonly string[],
  profiles: readonly string[],
): StreamFormats<TenantItem, TailStatus, TenantRow> {
  const longest = Math.max(...profiles.map((p) => p.length));
  return {
    json: (item) => tenantLine(item.event.profile, item.event.event.line),
    value: (item) => ({ profile: item.event.profile, event: item.event.event.payload() }),
    view: async () => {
      const [{ eventLineFormatter, eventRow, typeColumnWidth }, { statusLine }] = await Promise.all([
        import('../../render/event-line.js'),
        import('../../render/tail-view.js'),
      ]);
      const typeWidth = typeColumnWidth(types);
      return {
        row: (item, whole) => ({
          ...eventRow(item.event.event.payload(), undefined, whole),
          profile: item.event.profile,
        }),
        lines: (color, headings, words) => {
          const format = eventLineFormatter({ color, typeWidth, headings, words, now: () => clock.now() });
          const width = words ? longest : Math.min(PROFILE_COLUMN_MAX, longest);
          const blank = ' '.repeat(width);
          return (row, columns) => {
            const lines = format(row, columns - width - GAP.length).split('\n');
            // The profile goes on the line with the id: the event's last.
            const last = lines.length >= 2 ? lines.length - 2 : 0;
            return lines
              .map((line, i) => {
                if (line === '') return line;
                if (i === last) return `${profileCell(row.profile, width)}${GAP}${line}`;
                // Accessible mode's day heading is words alone, with nothing before them to pan past.
                return words ? line : `${blank}${GAP}${line}`;
              })
              .join('\n');
          };
        },
        status: statusLine,
        kind: (row) => row.type,
        text: (row) => `${row.profile} ${row.type} ${row.id} ${row.summary}`,
      };
    },
  };
}
