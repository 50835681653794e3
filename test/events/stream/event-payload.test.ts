import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { eventLine } from '../../../src/events/stream/event-payload.js';
import { neutralize } from '../../../src/text/sanitize.js';

const text = (pieces: readonly Buffer[] | undefined) =>
  pieces === undefined ? undefined : Buffer.concat(pieces).toString();

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = ['a', 'Z', ' ', '"', '\\', '\u0007', '\u001b', '\u007f', '\u009b', 'é', '€', '\u202e', '\u00ad', '🙂'];
const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;

function value(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (depth > 3 || r < 0.3) return pick(rnd, [0, -1.5e3, 12, true, false, null, 'x', '']);
  if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 8) }, () => pick(rnd, CHARS)).join('');
  if (r < 0.75) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth + 1));
  const o: Record<string, unknown> = {};
  for (let k = Math.floor(rnd() * 4); k > 0; k--)
    o[pick(rnd, ['id', 'type', 'offset', 'é', 'a b'])] = value(rnd, depth + 1);
  return o;
}

/** Valid objects, some with white space, then copies damaged by one byte. */
function cases(count: number): Buffer[] {
  const rnd = random(7);
  const out: Buffer[] = [];
  for (let n = 0; n < count; n++) {
    const inner = value(rnd, 0);
    const v = {
      offset: 'o',
      ...(typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? inner : { v: inner }),
    };
    const text = rnd() < 0.3 ? JSON.stringify(v, null, 1) : JSON.stringify(v);
    const bytes = Buffer.from(text);
    out.push(bytes);
    const damaged = Buffer.from(bytes);
    const at = Math.floor(rnd() * damaged.length);
    damaged[at] = pick(rnd, [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x01, 0xc3, 0xff, 0x75, 0x20]);
    out.push(damaged);
    out.push(bytes.subarray(0, Math.floor(rnd() * bytes.length)));
  }
  return out;
}

function expected(type: string, bytes: Buffer): Record<string, unknown> | undefined {
  if (!isUtf8(bytes)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { type: _ignored, ...rest } = parsed as Record<string, unknown>;
  return { type, ...rest };
}

describe('eventLine', () => {
  it('accepts exactly the valid JSON objects, and prints each as one compact line with nothing raw to act on', () => {
    let valid = 0;
    for (const bytes of cases(3000)) {
      const line = eventLine('user.created', bytes);
      const want = expected('user.created', bytes);
      if (want === undefined) {
        expect(line, bytes.toString()).toBeUndefined();
        continue;
      }
      valid++;
      expect(line, bytes.toString()).toBeDefined();
      const all = text(line) ?? '';
      expect(all.endsWith('\n')).toBe(true);
      const body = all.slice(0, -1);
      expect(neutralize(body), bytes.toString()).toBe(body);
      expect(JSON.parse(body)).toEqual(want);
      expect(body.startsWith('{"type":"user.created"')).toBe(true);
    }
    expect(valid).toBeGreaterThan(2500);
  });

  it('copies a compact, plain object byte for byte behind the type', () => {
    expect(text(eventLine('user.created', Buffer.from('{"offset":"o1","event":{"id":"e"}}')))).toBe(
      '{"type":"user.created","offset":"o1","event":{"id":"e"}}\n',
    );
    expect(text(eventLine('x', Buffer.from('{}')))).toBe('{"type":"x"}\n');
    expect(text(eventLine('x', Buffer.from('{"a":"é€🙂"}')))).toBe('{"type":"x","a":"é€🙂"}\n');
  });

  it('escapes what a terminal could act on, joins multi-line data, and keeps only the stream type', () => {
    expect(text(eventLine('x', Buffer.from('{"a":"\u007f\u009b\u202e\u061c\u00ad"}')))).toBe(
      '{"type":"x","a":"\\u007f\\u009b\\u202e\\u061c\\u00ad"}\n',
    );
    expect(text(eventLine('x', Buffer.from('{"a":\n1}')))).toBe('{"type":"x","a":1}\n');
    expect(text(eventLine('x', Buffer.from('{"type":"bogus","a":1}')))).toBe('{"type":"x","a":1}\n');
    expect(text(eventLine('x', Buffer.from('{"\\u0074ype":"bogus"}')))).toBe('{"type":"x"}\n');
    expect(text(eventLine('x', Buffer.from('{"__proto__":{"a":1}}')))).toBe('{"type":"x","__proto__":{"a":1}}\n');
    expect(text(eventLine('\u001b[31mx', Buffer.from('{}')))).toBe('{"type":"\\u001b[31mx"}\n');
  });

  it('refuses raw control characters, invalid UTF-8, non-objects and nesting deeper than 64 levels', () => {
    for (const json of ['{"a":"\u001b"}', '{"a":"\u0007"}', '[1]', '"x"', 'null', '', '{"a":1}{', '{"a":01}']) {
      expect(eventLine('x', Buffer.from(json)), json).toBeUndefined();
    }
    expect(eventLine('x', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]))).toBeUndefined();
    expect(eventLine('x', Buffer.from(`{"a":${'['.repeat(63)}${']'.repeat(63)}}`))).toBeDefined();
    expect(eventLine('x', Buffer.from(`{"a":${'['.repeat(64)}${']'.repeat(64)}}`))).toBeUndefined();
  });
});
