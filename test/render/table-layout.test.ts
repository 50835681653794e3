import { describe, expect, it } from 'vitest';
import { layoutColumns } from '../../src/render/table-layout.js';
import type { Column } from '../../src/render/table-model.js';

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

  it('shows again a column hidden early that fits once a wider one has gone too', () => {
    // provisionings at 100 columns: hiding KIND (8) is not enough, WHEN (30) goes too; then KIND fits again
    const wideWhen = [44, 11, 20, 27, 11, 5];
    expect(layoutColumns(columns, wideWhen, 100, false)).toEqual({
      shown: [0, 1, 2, 4],
      widths: [44, 11, 20, 27, 11, 5],
      hidden: ['when'],
    });
  });

  it('never cuts or hides a key, even when the line must wrap', () => {
    const { shown, widths } = layoutColumns(columns, natural, 20, false);
    expect(shown.map((i) => widths[i])).toEqual([10, 20]);
  });
});
