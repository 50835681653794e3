import { type EventType, isEventType, suggestEventTypes } from '../domain/event-types.js';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';

/** `--type` values: repeatable, comma lists, each one of the 25 types (else the nearest is suggested). */
export function parseEventTypes(values: readonly string[]): EventType[] {
  const types: EventType[] = [];
  for (const value of values.flatMap((v) => v.split(','))) {
    const name = value.trim();
    if (name === '') continue;
    if (!isEventType(name)) {
      const suggestion = suggestEventTypes(name);
      throw new UsageError(
        `unknown event type '${neutralize(name)}'${suggestion ? ` (did you mean ${suggestion}?)` : ''}`,
        "run 'svcadm events tail --help' for the 25 event types",
      );
    }
    if (!types.includes(name)) types.push(name);
  }
  return types;
}
