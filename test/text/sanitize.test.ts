import { describe, expect, it } from 'vitest';
import { jsonLine } from '../../src/render/json.js';
import { escapeJsonText, isUnsafeCodePoint, neutralize, UNSAFE_RANGES_UNICODE } from '../../src/text/sanitize.js';

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

describe("the unsafe set is Unicode's (issue 28, point 15)", () => {
  /** What the table is derived from (scripts/unsafe-ranges.js), asked of the running Node's own Unicode tables. */
  const UNICODE_UNSAFE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]$/u;
  const UNASSIGNED = /^\p{Cn}$/u;

  it('is every control, format character, line and paragraph separator and default-ignorable code point', () => {
    const missing: string[] = [];
    const extra: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const unicode = UNICODE_UNSAFE.test(ch);
      if (unicode && !isUnsafeCodePoint(cp)) missing.push(cp.toString(16));
      // A Node of another Unicode version than the table's may not know a code point the table holds.
      const known = process.versions.unicode === UNSAFE_RANGES_UNICODE || !UNASSIGNED.test(ch);
      if (!unicode && isUnsafeCodePoint(cp) && known) extra.push(cp.toString(16));
    }
    // Missing ones: run `node scripts/unsafe-ranges.js` with this Node to take its Unicode version.
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it('escapes the format characters and Hangul fillers a hand-kept list missed', () => {
    const missed = [
      0x110bd, 0x110cd, 0x13430, 0x1343f, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a, 0x115f, 0x1160, 0x3164, 0xffa0,
    ];
    const text = missed.map((cp) => `a${String.fromCodePoint(cp)}`).join('');
    expect(neutralize(text)).toBe(
      'a\\u{110bd}a\\u{110cd}a\\u{13430}a\\u{1343f}a\\u{1bca0}a\\u{1bca3}a\\u{1d173}a\\u{1d17a}a\\u115fa\\u1160a\\u3164a\\uffa0',
    );
    const line = jsonLine({ s: text });
    expect(JSON.parse(line)).toEqual({ s: text });
    expect(line).not.toMatch(/[^\x20-\x7e\n]/);
  });

  it('escapes variation selectors, which can carry hidden text, in both planes and in JSON as surrogate pairs', () => {
    expect(neutralize('x\ufe0f\u{e0100}\u{e01ef}y')).toBe('x\\ufe0f\\u{e0100}\\u{e01ef}y');
    expect(jsonLine({ s: '\u{e0100}' })).toBe('{"s":"\\udb40\\udd00"}\n');
  });
});
