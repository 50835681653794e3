import { describe, expect, it } from 'vitest';
import { type Cell, cell } from '../../src/render/table-model.js';
import { renderTable } from '../../src/render/table-text.js';

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
