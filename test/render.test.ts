import { describe, expect, it } from 'vitest';
import { jsonDocument, jsonLine } from '../src/render/json.js';
import { neutralize } from '../src/render/sanitize.js';
import { cell, tableText } from '../src/render/table-model.js';

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

describe('tableText', () => {
  it('aligns list columns with upper-case headers', () => {
    expect(
      tableText({
        kind: 'list',
        columns: ['name', 'id'],
        rows: [
          [cell('alpha'), cell('1')],
          [cell('b'), cell(undefined)],
        ],
      }),
    ).toBe('NAME   ID\nalpha  1\nb      -\n');
  });
  it('aligns detail labels', () => {
    expect(
      tableText({
        kind: 'detail',
        title: 'T',
        rows: [
          ['id', cell('x')],
          ['resource', cell('\u001bz')],
        ],
      }),
    ).toBe('T\nid        x\nresource  \\x1bz\n');
  });
});

describe('fitWidths', () => {
  it('keeps natural widths that fit', async () => {
    const { fitWidths } = await import('../src/render/table-view.js');
    expect(fitWidths([10, 20, 5], 80)).toEqual([10, 20, 5]);
  });
  it('cuts the widest column first, down to the next widest', async () => {
    const { fitWidths } = await import('../src/render/table-view.js');
    expect(fitWidths([10, 60, 12], 60)).toEqual([10, 38, 12]);
    expect(fitWidths([30, 30, 10], 50)).toEqual([20, 20, 10]);
  });
});
