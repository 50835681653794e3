import { describe, expect, it } from 'vitest';
import { relativeAge, tableTime } from '../src/render/dates.js';
import { eventLineFormatter, typeColumnWidth } from '../src/render/event-line.js';
import { jsonDocument, jsonLine } from '../src/render/json.js';
import { layoutColumns } from '../src/render/table-layout.js';
import { type Cell, type Column, cell, timeCell } from '../src/render/table-model.js';
import { renderTable } from '../src/render/table-text.js';
import { statusLine, type TailStatus } from '../src/render/tail-view.js';
import { neutralize } from '../src/text/sanitize.js';

describe('neutralize', () => {
  it('shows control characters and escape sequences escaped', () => {
    expect(neutralize('\u001b[31mred\u001b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    expect(neutralize('a\nb\tc\rd\u0007')).toBe('a\\nb\\tc\\rd\\x07');
    expect(neutralize('\u009b2J \u202eevil \u200b')).toBe('\\x9b2J \\u202eevil \\u200b');
    expect(neutralize('plain ünïcode ✓')).toBe('plain ünïcode ✓');
  });
});

describe('JSON output', () => {
  it('never emits an ESC, C1 or bidi character raw, and stays valid JSON', () => {
    const value = { s: '\u001b]0;title\u0007 \u009b \u202e' };
    for (const text of [jsonDocument(value), jsonLine(value)]) {
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(JSON.parse(text)).toEqual(value);
    }
  });
});

const plain = { width: undefined, wide: false, color: false };

describe('renderTable', () => {
  it('aligns list columns with upper-case headers', () => {
    const spec = {
      kind: 'list' as const,
      columns: [
        { name: 'name', fit: 'key' as const },
        { name: 'id', fit: 'key' as const },
      ],
      rows: [
        [cell('alpha'), cell('1')],
        [cell('b'), cell(undefined)],
      ],
    };
    expect(renderTable(spec, plain)).toEqual({ text: 'NAME   ID\nalpha  1\nb      -\n', hidden: [] });
  });

  it('aligns detail labels', () => {
    const spec = {
      kind: 'detail' as const,
      title: 'T',
      rows: [['id', cell('x')] as [string, Cell], ['resource', cell('\u001bz')] as [string, Cell]],
    };
    expect(renderTable(spec, plain).text).toBe('T\nid        x\nresource  \\x1bz\n');
  });

  it('aligns wide characters by the columns they take', () => {
    const spec = {
      kind: 'list' as const,
      columns: [
        { name: 'name', fit: 'key' as const },
        { name: 'id', fit: 'key' as const },
      ],
      rows: [
        [cell('東京'), cell('1')],
        [cell('abcde'), cell('2')],
      ],
    };
    expect(renderTable(spec, plain).text).toBe('NAME   ID\n東京   1\nabcde  2\n');
  });
});

describe('layoutColumns', () => {
  const columns: Column[] = [
    { name: 'name', fit: 'key' },
    { name: 'kind', fit: 'detail', rank: 1 },
    { name: 'id', fit: 'key' },
    { name: 'when', fit: 'detail', rank: 2 },
    { name: 'note', fit: 'text', rank: 3 },
    { name: 'extra', fit: 'detail', wide: true },
  ];
  const natural = [10, 8, 20, 16, 40, 5];

  it('keeps natural widths that fit, without the wide-only columns', () => {
    expect(layoutColumns(columns, natural, 200, false)).toEqual({
      shown: [0, 1, 2, 3, 4],
      widths: natural,
      hidden: [],
    });
    expect(layoutColumns(columns, natural, undefined, false).shown).toEqual([0, 1, 2, 3, 4]);
  });

  it('shows every column in full with -o wide, whatever the width', () => {
    expect(layoutColumns(columns, natural, 30, true)).toEqual({
      shown: [0, 1, 2, 3, 4, 5],
      widths: natural,
      hidden: [],
    });
  });

  it('cuts free text first, down to its minimum', () => {
    // 10 + 8 + 20 + 16 + 40 + 4 gutters of 2 = 102: the note gives 22
    expect(layoutColumns(columns, natural, 80, false)).toEqual({
      shown: [0, 1, 2, 3, 4],
      widths: [10, 8, 20, 16, 18, 5],
      hidden: [],
    });
  });

  it('then hides the least useful columns, and gives the room back to the text', () => {
    // the note at its least, 10: 72; without KIND: 62 <= 70, and the note grows back by 8
    expect(layoutColumns(columns, natural, 70, false)).toEqual({
      shown: [0, 2, 3, 4],
      widths: [10, 8, 20, 16, 18, 5],
      hidden: ['kind'],
    });
    expect(layoutColumns(columns, natural, 40, false)).toEqual({
      shown: [0, 2],
      widths: [10, 8, 20, 16, 10, 5],
      hidden: ['kind', 'when', 'note'],
    });
  });

  it('never cuts or hides a key, even when the line must wrap', () => {
    const { shown, widths } = layoutColumns(columns, natural, 20, false);
    expect(shown.map((i) => widths[i])).toEqual([10, 20]);
  });
});

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

describe('event lines', () => {
  const now = Date.parse('2025-06-05T12:00:00Z');
  const row = (type: string, time: string) => ({
    time: Date.parse(time),
    type,
    id: 'evt_AbCdEfGh00000001',
    summary: 'ada@example.com (Ada Lovelace)',
  });

  it('put a UTC day heading before the first event of each day, "(today)" on today', () => {
    const format = eventLineFormatter({ color: false, typeWidth: 12, now: () => now });
    const lines = [
      format(row('user.created', '2025-06-04T23:59:59Z'), 120),
      format(row('user.created', '2025-06-05T00:00:00+00:00'), 120),
      format(row('user.deleted', '2025-06-05T01:00:00Z'), 120),
    ].join('');
    expect(lines).toBe(
      '── 2025-06-04 UTC ──\n' +
        '23:59:59  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n' +
        '── 2025-06-05 UTC (today) ──\n' +
        '00:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n' +
        '01:00:00  user.deleted  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n',
    );
  });

  it('fit 60 columns on one line when the types asked for are short, else on two, the id never cut', () => {
    const short = eventLineFormatter({ color: false, typeWidth: typeColumnWidth(['user.created']), now: () => now });
    short(row('user.created', '2025-06-05T11:00:00Z'), 60); // the day heading
    expect(short(row('user.created', '2025-06-05T11:00:00Z'), 60)).toBe(
      '11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.…\n',
    );
    const all = eventLineFormatter({ color: false, typeWidth: typeColumnWidth([]), now: () => now });
    all(row('user.created', '2025-06-05T11:00:00Z'), 60);
    expect(all(row('organization.member.role.assigned', '2025-06-05T11:00:00Z'), 60)).toBe(
      '11:00:00  organization.member.role.assigned\n          evt_AbCdEfGh00000001  ada@example.com (Ada Lovel…\n',
    );
  });
});

describe('the status line of the live view', () => {
  const status: TailStatus = {
    state: 'reconnecting',
    attempt: 3,
    reconnectAt: 12_500,
    reason: 'the service closed the event stream',
    types: ['user.created'],
    seen: 1234,
    rate: 2.5,
    cursor: 'cur_0004',
    now: 10_000,
  };

  it('keeps clear of the last column: the reason is cut, what follows is whole or left out', () => {
    expect(statusLine(status, 60, false)).toBe('○ reconnecting in 3s (attempt 3): the service closed the e…');
    expect(statusLine(status, 120, false)).toBe(
      '○ reconnecting in 3s (attempt 3): the service closed the event stream · 1,234 events · 2.5/s · user.created',
    );
    expect(statusLine({ ...status, state: 'stopped', reason: 'interrupted' }, 60, false)).toBe(
      '■ stopped: interrupted · 1,234 events · user.created',
    );
  });
});
