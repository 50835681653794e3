import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { yamlDocument } from '../../src/render/yaml-text.js';
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
