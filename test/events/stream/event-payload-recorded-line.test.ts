import { describe, expect, it } from 'vitest';
import { eventLine, recordedLine } from '../../../src/events/stream/event-payload.js';
import { seeded } from '../../helpers/seeded.js';

const taken = (line: string) => {
  const r = recordedLine(Buffer.from(line));
  return r && { type: r.type, offset: r.offset, line: Buffer.concat(r.line).toString() };
};

/** A seeded generator (an LCG), so that a failure names a reproducible case. */
function generator(seed: number) {
  const { next, pick } = seeded(seed);
  const strings = ['evt_1', 'a"b', '\\', 'é', '\u007f', '\u202e', '', ':', '}', '1.0'];
  const value = (depth: number): string => {
    const r = next();
    if (depth > 3 || r < 0.3)
      return pick(['1', '1.0', '-2e3', 'true', 'null', '"\\u0041"', ...strings.map((x) => JSON.stringify(x))]);
    if (r < 0.45) return `[${Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1)).join(',')}]`;
    const keys = Array.from({ length: Math.floor(next() * 4) }, () =>
      pick(['id', 'type', 'offset', 'attempts', 'data']),
    );
    return `{${keys.map((k) => `"${k}":${value(depth + 1)}`).join(',')}}`;
  };
  /** The service's data (`offset` first at most times), and at times a line written by hand around it. */
  return (): string => {
    const type = pick(['user.created', 'group.member.deleted', 't"q', 'é', '']);
    const members = [`"offset":${pick(['"o1"', '"ZXYx"', '""', '5', '"a\\"b"'])}`];
    for (let i = Math.floor(next() * 4); i > 0; i--) {
      members.push(`"${pick(['event', 'event', 'data', 'type', 'offset', 'attempts', 'error'])}":${value(1)}`);
    }
    if (next() < 0.2) members.reverse();
    const data = Buffer.from(`{${members.join(',')}}`);
    const line = eventLine(type, data);
    if (line && next() < 0.8) return Buffer.concat(line).toString().slice(0, -1);
    return `{"type":${JSON.stringify(type)},${members.join(next() < 0.2 ? ', ' : ',')}}`;
  };
}

describe('recordedLine', () => {
  it('takes a line as svcadm writes it as it stands: its type, its offset, the line itself', () => {
    const line = '{"type":"user.created","offset":"ZXYx","event":{"id":"evt_1","n":1.0,"s":"\\u0041"}}';
    expect(taken(line)).toEqual({ type: 'user.created', offset: 'ZXYx', line: `${line}\n` });
  });

  it.each([
    ['an escape in the type', '{"type":"user\\u002ecreated","offset":"o","event":{}}'],
    ['a type beyond printable ASCII', '{"type":"é","offset":"o","event":{}}'],
    ['an empty type', '{"type":"","offset":"o","event":{}}'],
    ['an offset that is not a string', '{"type":"t","offset":5,"event":{}}'],
    ['no offset second', '{"type":"t","event":{},"offset":"o"}'],
    ['nothing after the offset', '{"type":"t","offset":"o"}'],
    ['a second offset', '{"type":"t","offset":"o","event":{},"offset":"p"}'],
    ['a second type', '{"type":"t","offset":"o","type":"u"}'],
    [
      'attempts at the top: maybe a dead letter',
      '{"type":"t","offset":"o","event":{"type":"t"},"attempts":1,"error":"x"}',
    ],
    ['white space between tokens', '{"type":"t","offset":"o", "event":{}}'],
    ['a line break written as CR LF', '{"type":"t","offset":"o","event":{}}\r'],
    ['a character a terminal could act on', '{"type":"t","offset":"o","event":{"s":"\u001b[2J"}}'],
    ['an escaped key at the top', '{"type":"t","offset":"o","\\u0065vent":{}}'],
    ['JSON cut short', '{"type":"t","offset":"o","event":{"id":"e'],
    ['a dead letter', '{"event":{"type":"t","offset":"o"},"offset":"o","status":400,"attempts":1,"error":"x","at":1}'],
    ['not JSON', 'not json'],
    ['a short line', '{"type":"'],
  ])('leaves to the parse a line with %s', (_, line) => {
    expect(recordedLine(Buffer.from(line))).toBeUndefined();
  });

  it('takes nested keys named type, offset or attempts', () => {
    const line = '{"type":"t","offset":"o","event":{"type":"t","offset":"x","attempts":[1]}}';
    expect(taken(line)?.line).toBe(`${line}\n`);
  });

  it('agrees with the parse of every line it takes, and with what the tail wrote, on 20,000 seeded lines', () => {
    const next = generator(0x2026);
    let takenCount = 0;
    for (let i = 0; i < 20_000; i++) {
      const line = next();
      const r = taken(line);
      if (!r) continue;
      takenCount++;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect([line, r]).toEqual([line, { type: parsed.type, offset: parsed.offset, line: `${line}\n` }]);
      expect([line, 'attempts' in parsed]).toEqual([line, false]);
      // What the tail would write for the same event, from the data without the type.
      const data = Buffer.from(`{${line.slice(`{"type":${JSON.stringify(r.type)},`.length)}`);
      expect([line, Buffer.concat(eventLine(r.type, data) ?? []).toString()]).toEqual([line, `${line}\n`]);
    }
    expect(takenCount).toBeGreaterThan(1_000);
  });
});
