import { describe, expect, it } from 'vitest';
import { jsonLine } from '../../src/render/json.js';
import { escapeJsonText, isUnsafeCodePoint, neutralize } from '../../src/text/sanitize.js';

describe('neutralize', () => {
  it('shows control characters and escape sequences escaped', () => {
    expect(neutralize('\u001b[31mred\u001b[0m')).toBe('\\x1b[31mred\\x1b[0m');
    expect(neutralize('a\nb\tc\rd\u0007')).toBe('a\\nb\\tc\\rd\\x07');
    expect(neutralize('\u009b2J \u202eevil \u200b')).toBe('\\x9b2J \\u202eevil \\u200b');
    expect(neutralize('plain ünïcode ✓')).toBe('plain ünïcode ✓');
  });
});

describe('format characters from the service', () => {
  it('shows U+061C (Arabic letter mark) and U+00AD (soft hyphen) escaped, like the other bidi and format characters', () => {
    expect(neutralize('a\u061cb\u00adc\u180ed\ufff9e')).toBe('a\\u061cb\\xadc\\u180ed\\ufff9e');
    expect(escapeJsonText(JSON.stringify('a\u061cb\u00adc'))).toBe('"a\\u061cb\\u00adc"');
  });

  it('escapes the invisible tag characters (U+E0000 block) as a valid surrogate pair in JSON', () => {
    expect(neutralize('x\u{e0041}y')).toBe('x\\u{e0041}y');
    const line = jsonLine({ s: 'x\u{e0041}y' });
    expect(line).toBe('{"s":"x\\udb40\\udc41y"}\n');
    expect(JSON.parse(line)).toEqual({ s: 'x\u{e0041}y' });
  });
});

describe('the unsafe set', () => {
  it('is the same whether a string is neutralised or a code point is looked up (the event stream checks bytes)', () => {
    const differ: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if ((neutralize(ch) !== ch) !== isUnsafeCodePoint(cp)) differ.push(cp);
    }
    expect(differ).toEqual([]);
  });
});
