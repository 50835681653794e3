import type { StreamEvent } from '../../api/events.js';
import type { Clock } from '../../clock.js';
import type { ShownItem } from '../../forward/pipeline.js';
import type { StreamFormats } from '../../io/stream-types.js';
import type { EventRow } from '../../render/event-line.js';
import type { TailStatus } from '../../render/tail-view.js';

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
        row: (item) => eventRow(item.event.payload(), item.acknowledged?.status),
        lines: (color) => eventLineFormatter({ color, typeWidth, now: () => clock.now() }),
        status: statusLine,
        kind: (row) => row.type,
        text: (row) => `${row.type} ${row.id} ${row.summary}`,
      };
    },
  };
}
