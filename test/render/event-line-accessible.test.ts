import { describe, expect, it } from 'vitest';
import { eventLineFormatter, eventRow, typeColumnWidth } from '../../src/render/event-line.js';

// Accessible mode's event lines (`words`): in words, and nothing cut, whatever the terminal's width.

const NOW = Date.parse('2025-06-05T12:00:00Z');
const TYPE = `user.${'synchronized.'.repeat(6)}done`;
const ID = `evt_${'9'.repeat(36)}`;
const SUMMARY = `${'a'.repeat(200)} · ${'b'.repeat(200)}`;

describe('event lines in accessible mode', () => {
  it('keep the type, the id and the summary whole on one line at any width, in words', () => {
    const format = eventLineFormatter({ color: false, typeWidth: typeColumnWidth([]), words: true, now: () => NOW });
    const row = { time: Date.parse('2025-06-05T11:00:00Z'), type: TYPE, id: ID, summary: SUMMARY };
    for (const width of [40, 80, Number.POSITIVE_INFINITY]) {
      expect(format(row, width)).toBe(
        `${width === 40 ? 'Events of 2025-06-05 UTC (today):\n' : ''}11:00:00  ${TYPE}  ${ID}  ${'a'.repeat(200)}, ${'b'.repeat(200)}\n`,
      );
    }
    // Outside accessible mode, the same type is cut to its column.
    const cut = eventLineFormatter({ color: false, typeWidth: typeColumnWidth([]), headings: false, now: () => NOW });
    expect(cut(row, Number.POSITIVE_INFINITY)).toBe(
      `11:00:00  ${TYPE.slice(0, 32)}…  ${ID}  ${'a'.repeat(200)} · ${'b'.repeat(200)}\n`,
    );
  });

  it('take the whole summary into the row when asked (accessible mode), else cut it to 300 characters', () => {
    const payload = {
      type: 'user.created',
      event: { id: 'evt_1', data: { object: { email: 'ada@example.com', name: 'n'.repeat(400) } } },
    };
    expect(eventRow(payload, undefined, true).summary).toBe(`ada@example.com (${'n'.repeat(400)})`);
    expect(eventRow(payload).summary).toBe(`ada@example.com (${'n'.repeat(282)}…`);
  });
});
