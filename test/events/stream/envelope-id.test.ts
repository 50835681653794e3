import { describe, expect, it } from 'vitest';
import { scanEnvelopeId, UNSURE } from '../../../src/events/stream/envelope-id.js';
import { envelopeIdOf } from '../../../src/events/stream/subscription.js';
import { seeded } from '../../helpers/seeded.js';

/** What the scan must agree with: the id JSON.parse finds. */
const parsed = (text: string) => envelopeIdOf(JSON.parse(text) as Record<string, unknown>);

/** A seeded generator of JSON values with the shapes that could mislead the scan. */
function generator(seed: number) {
  const { next, pick } = seeded(seed);
  const strings = ['id', 'event', 'evt_1', 'a"b', 'a\\"', '\\', '}', '{"id":"x"}', 'é', '\u2028', '', ':', ','];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) return pick([1, 0, -2.5, true, false, null, ...strings]);
    if (r < 0.45) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) o[pick(strings)] = value(depth + 1);
    return o;
  };
  /** A compact object text, with duplicate keys spliced in at times (JSON.parse keeps the last). */
  const payload = (): string => {
    const members: string[] = [];
    for (let i = Math.floor(next() * 5); i >= 0; i--) {
      const key = pick(['event', 'event', 'type', 'offset', 'id', 'data']);
      const v = key === 'event' && next() < 0.7 ? envelope() : JSON.stringify(value(1));
      members.push(`${JSON.stringify(key)}:${v}`);
    }
    return `{${members.join(',')}}`;
  };
  const envelope = (): string => {
    const members: string[] = [];
    for (let i = Math.floor(next() * 4); i >= 0; i--) {
      const key = pick(['id', 'id', 'type', 'data', 'event']);
      members.push(`${JSON.stringify(key)}:${JSON.stringify(key === 'id' && next() < 0.7 ? pick(strings) : value(2))}`);
    }
    return `{${members.join(',')}}`;
  };
  return payload;
}

describe('scanEnvelopeId', () => {
  it.each([
    ['{"type":"a","event":{"id":"evt_1"}}', 'evt_1'],
    ['{"type":"a","event":{"data":{"id":"inner"},"id":"evt_2"}}', 'evt_2'],
    ['{"type":"a","event":{"data":{"id":"inner"}}}', undefined],
    ['{"id":"top","event":{"x":1}}', undefined],
    ['{"event":{"id":"first"},"event":{"id":"second"}}', 'second'],
    ['{"event":{"id":"first"},"event":"not an object"}', undefined],
    ['{"event":{"id":"a","id":7}}', undefined],
    ['{"event":{"id":"a\\"b\\\\"}}', 'a"b\\'],
    ['{"event":{"id":"\\u00e9"}}', 'é'],
    ['{"event":["id","x"]}', undefined],
    ['{"event":{"id":"evt_3"}}\n', 'evt_3'],
    ['{"data":"\\"event\\":{\\"id\\":\\"fake\\"}"}', undefined],
    ['{"event":{"id":[]},"other":{"event":{"id":"nested"}}}', undefined],
  ])('%s → %s, as JSON.parse says', (text, id) => {
    expect(scanEnvelopeId(text)).toBe(id);
    expect(parsed(text)).toBe(id);
  });

  it('leaves to JSON.parse what it does not read: an escaped key, white space between tokens', () => {
    expect(scanEnvelopeId('{"\\u0065vent":{"id":"x"}}')).toBe(UNSURE);
    expect(scanEnvelopeId('{"event": {"id":"x"}}')).toBe(UNSURE);
    expect(scanEnvelopeId('{ "event":{"id":"x"}}')).toBe(UNSURE);
  });

  it('agrees with JSON.parse on 20,000 seeded payloads with nested and duplicate keys', () => {
    const payload = generator(0x3007);
    for (let i = 0; i < 20_000; i++) {
      const text = payload();
      const scanned = scanEnvelopeId(text);
      if (scanned !== UNSURE) expect([text, scanned]).toEqual([text, parsed(text)]);
    }
  });
});
