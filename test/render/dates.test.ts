import { describe, expect, it } from 'vitest';
import { relativeAge, tableTime } from '../../src/render/dates.js';
import { timeCell } from '../../src/render/table-model.js';

describe('dates', () => {
  const now = Date.parse('2025-06-05T12:00:00Z');
  const ago = (ms: number) => relativeAge(now - ms, now);

  it('say how long ago in one unit, relative to the clock given', () => {
    expect([59_000, 60_000, 59 * 60_000, 3_600_000, 47 * 3_600_000, 48 * 3_600_000].map(ago)).toEqual([
      'just now',
      '1m ago',
      '59m ago',
      '1h ago',
      '47h ago',
      '2d ago',
    ]);
    expect([729 * 86_400_000, 730 * 86_400_000].map(ago)).toEqual(['729d ago', '2y ago']);
    expect(relativeAge(now + 5 * 3_600_000, now)).toBe('in 5h');
  });

  it('show UTC to the minute, with the age; text that is not a time is shown as it is', () => {
    expect(tableTime('2025-06-02T09:30:59.999Z', now)).toBe('2025-06-02 09:30 (3d ago)');
    expect(tableTime('2025-06-02T11:30:00+02:00', now, true)).toBe('2025-06-02 09:30 UTC (3d ago)');
    expect(tableTime('soon', now)).toBeUndefined();
    expect(timeCell('soon\u001b[2J', now)).toEqual({ text: 'soon\\x1b[2J' });
    expect(timeCell(undefined, now)).toEqual({ text: '-' });
  });
});
