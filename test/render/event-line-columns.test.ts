import { describe, expect, it } from 'vitest';
import { eventLineFormatter, typeColumnWidth } from '../../src/render/event-line.js';

// The id column of event lines (docs/decisions/2026-11-28-event-line-columns.md): like the type column, as wide as the
// widest id seen so far (at least the spec's 20, at most 40), so that ids of two lengths keep the summaries in line.

const NOW = Date.parse('2025-06-05T12:00:00Z');
const row = (id: string, second: number) => ({
  time: Date.parse(`2025-06-05T11:00:0${second}Z`),
  type: 'user.created',
  id,
  summary: 'ada@example.com',
});

describe('the id column of event lines', () => {
  it('grows to the widest id seen: the lines after it line up', () => {
    const format = eventLineFormatter({
      color: false,
      typeWidth: typeColumnWidth([]),
      headings: false,
      now: () => NOW,
    });
    const lines = [
      row('evt_AbCdEfGh00000001', 0),
      row('evt_AbCdEfGh000000000002', 1),
      row('evt_AbCdEfGh00000003', 2),
    ].map((r) => format(r, 100));
    expect(lines.join('')).toBe(
      [
        '11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com',
        '11:00:01  user.created  evt_AbCdEfGh000000000002  ada@example.com',
        '11:00:02  user.created  evt_AbCdEfGh00000003      ada@example.com',
        '',
      ].join('\n'),
    );
  });

  it('grows to 40 at most: a longer id is whole, and moves its own summary only', () => {
    const format = eventLineFormatter({
      color: false,
      typeWidth: typeColumnWidth([]),
      headings: false,
      now: () => NOW,
    });
    const long = `evt_${'x'.repeat(60)}`;
    const lines = [row(long, 0), row('evt_AbCdEfGh00000002', 1)].map((r) => format(r, 200));
    expect(lines.join('')).toBe(
      [
        `11:00:00  user.created  ${long}  ada@example.com`,
        `11:00:01  user.created  evt_AbCdEfGh00000002${' '.repeat(20)}  ada@example.com`,
        '',
      ].join('\n'),
    );
  });
});
