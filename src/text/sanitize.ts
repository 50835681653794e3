const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The code points a terminal could act on or that hide text: C0 and C1 controls, DEL, every format character
 * (bidi marks and overrides, zero-width characters, U+00AD, U+061C, the invisible tag block…) and the line and
 * paragraph separators. One table: the regular expressions below and `isUnsafeCodePoint` are built from it.
 */
export const UNSAFE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x0600, 0x0605],
  [0x061c, 0x061c],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x0890, 0x0891],
  [0x08e2, 0x08e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
];

/** The table as one flag per Basic Multilingual Plane code point: the event stream asks it for every character. */
const UNSAFE_BMP = new Uint8Array(0x10000);
for (const [from, to] of UNSAFE_RANGES) UNSAFE_BMP.fill(1, from, Math.min(to, 0xffff) + 1);

export function isUnsafeCodePoint(cp: number): boolean {
  if (cp <= 0xffff) return UNSAFE_BMP[cp] === 1;
  for (const [from, to] of UNSAFE_RANGES) if (cp >= from && cp <= to) return true;
  return false;
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** A character class over the table; astral ranges become surrogate-pair alternatives (no `u` flag: it is faster). */
function unsafePattern(skipC0: boolean): RegExp {
  const bmp: string[] = [];
  const astral: string[] = [];
  for (const [from, to] of UNSAFE_RANGES) {
    if (skipC0 && to <= 0x1f) continue;
    if (from <= 0xffff) {
      bmp.push(from === to ? `\\u${hex4(from)}` : `\\u${hex4(from)}-\\u${hex4(to)}`);
      continue;
    }
    // Each astral range of the table lies within one high surrogate.
    const high = 0xd800 + ((from - 0x10000) >> 10);
    const low = (cp: number) => 0xdc00 + ((cp - 0x10000) & 0x3ff);
    astral.push(`\\u${hex4(high)}[\\u${hex4(low(from))}-\\u${hex4(low(to))}]`);
  }
  return new RegExp([`[${bmp.join('')}]`, ...astral].join('|'), 'g');
}

const UNSAFE = unsafePattern(false);

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${hex4(code)}`;
}

/** Shows control characters and escape sequences from the service escaped (`\x1b`), so a terminal never runs them. */
export function neutralize(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

const JSON_UNSAFE = unsafePattern(true);

/** JSON.stringify already escapes C0 controls; this escapes the rest a terminal could act on, keeping valid JSON. */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex4(ch.charCodeAt(i))}`;
    return out;
  });
}
