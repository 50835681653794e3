import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { yamlDocument, yamlEntryPieces } from '../../src/render/yaml-text.js';
import { UNSAFE_RANGES } from '../../src/text/sanitize.js';

describe('YAML output (issue 28, point 15: the same unsafe set as neutralize and JSON)', () => {
  it('escapes every code point of the table, in both planes, and reads back as the same data', () => {
    const samples = UNSAFE_RANGES.flat().filter((cp) => cp > 0x1f);
    const value = { s: samples.map((cp) => `a${String.fromCodePoint(cp)}`).join('') };
    const text = yamlDocument(value);
    expect(text).not.toMatch(/[^\x20-\x7e\n]/);
    expect(parse(text)).toEqual(value);
  });

  it('writes a format character above U+FFFF as \\U and one below as \\u', () => {
    expect(yamlDocument({ s: 'x\u{e0041}\u3164\u{1d173}y' })).toBe('s: "x\\U000e0041\\u3164\\U0001d173y"\n');
  });
});

describe('a sequence written entry by entry (across tenants, issue 38 point 1)', () => {
  it('is the same text as the whole document: a long result item by item under its entry', () => {
    const item = () => ({
      id: 'rlp_1',
      text: 'multi\nline\n\nwith a blank line',
      nested: { list: [1, [2, 3], {}], empty: [], none: {} },
      dash: '- x',
      colon: 'a: b',
      unsafe: 'x\u202ey\u0085z\x1b[2J',
      tab: 'tab\there',
      lead: '  space',
      number: '0123',
      bool: 'true',
      nothing: null,
    });
    const results: unknown[] = [
      [item(), 'plain', 42, null, [], {}, ['x', ['y']], 'line1\nline2', ''],
      item(),
      'plain',
      null,
      [],
      {},
      [null],
      [[]],
      ['line1\nline2'],
      [{ a: 'multi\nline\n' }],
      [' lead', 'x: y', '#hash', "'quoted'"],
    ];
    const entries = results.map((result, i) => ({ profile: `p${i}`, domain: 'tenant.example.com', result }));
    const pieces = entries.map(({ result, ...head }) => [...yamlEntryPieces(head, result)].join('')).join('');
    expect(pieces).toBe(yamlDocument(entries));
    expect(parse(pieces)).toEqual(entries);
  });
});
