import { describe, expect, it } from 'vitest';
import { eventLine } from '../../../src/events/stream/event-payload.js';
import { createSseFramer } from '../../../src/events/stream/sse-fast-path.js';
import { SseLimitError, SseParser } from '../../../src/events/stream/sse-parser.js';

/** What a consumer gets of a message: its fields, its data, and the NDJSON line `events tail` would print. */
interface Seen {
  id: string | undefined;
  event: string;
  hasData: boolean;
  data: string;
  line: string | undefined;
}

function seen(m: {
  id: string | undefined;
  event: string;
  hasData: boolean;
  data: Buffer;
  line?: readonly Buffer[] | undefined;
}): Seen {
  const line = m.line ?? (m.hasData ? eventLine(m.event, m.data) : undefined);
  return {
    id: m.id,
    event: m.event,
    hasData: m.hasData,
    data: m.data.toString('utf8'),
    line: line && Buffer.concat(line).toString('utf8'),
  };
}

interface Outcome {
  messages: Seen[];
  retries: number[];
  error?: string;
  /** Messages whose line the fast path wrote (not compared: the reference has none). */
  fast?: number;
}

/** The reference: the TypeScript parser, chunk by chunk. */
function byParser(runs: readonly (readonly Buffer[])[]): Outcome {
  const out: Outcome = { messages: [], retries: [] };
  const parser = new SseParser({ message: (m) => out.messages.push(seen(m)), retry: (ms) => out.retries.push(ms) });
  try {
    for (const run of runs) for (const chunk of run) parser.feed(chunk);
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}

/** The fast path, run by run; lines are read at once, as `events tail` writes them before the next run. */
function byFramer(runs: readonly (readonly Buffer[])[], reuseLines = true): Outcome {
  const out: Outcome = { messages: [], retries: [] };
  let fast = 0;
  const framer = createSseFramer(
    {
      message: (m) => {
        if (m.line) fast++;
        out.messages.push(seen(m));
      },
      retry: (ms) => out.retries.push(ms),
    },
    () => false,
    { reuseLines },
  );
  try {
    for (const run of runs) framer.feed(run);
  } catch (err) {
    out.error = (err as Error).message;
  }
  return { ...out, fast };
}

/** `bytes` cut every `size` bytes, `perRun` chunks to a run. */
function cut(bytes: Buffer, size: number, perRun: number): Buffer[][] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  const runs: Buffer[][] = [];
  for (let at = 0; at < chunks.length; at += perRun) runs.push(chunks.slice(at, at + perRun));
  return runs;
}

const event = (id: string, type: string, data: string) => `id: ${id}\nevent: ${type}\ndata: ${data}\n\n`;
/** An event whose data holds bytes that are not UTF-8. */
const raw = (id: string, before: string, bytes: number[], after: string) =>
  Buffer.concat([
    Buffer.from(`id: ${id}\nevent: user.updated\ndata: ${before}`),
    Buffer.from(bytes),
    Buffer.from(`${after}\n\n`),
  ]);

/** A stream with every kind of message the fast path takes, and every kind it leaves to the parser. */
const MIXED = [
  '\ufeff:connected\nretry: 2000\n\n',
  event('a1', 'user.created', '{"user_id":"u1","name":"Zoë","n":-1.5e3,"ok":true,"no":null,"list":[1,{"a":[]}]}'),
  'id:a2\nevent:user.deleted\ndata:{}\n\n',
  ': heartbeat\n\n',
  event('a3', 'user.updated', '{"note":"tab\\there \\u001b[31m \\"q\\" \\\\"}'),
  event('a4', 'user.updated', '{"bidi":"\u202e","c1":"\u0085","del":"\u007f","tag":"\u{e0041}"}'),
  event('a5', 'user.updated', '{ "spaced": 1 }'),
  event('a6', 'user.updated', '{"type":"own","x":1}'),
  event('a7', 'user.updated', '{"t\\u0079pe":"escaped key"}'),
  event('a8', 'user.updated', 'not json'),
  event('a9', 'user.updated', '["array"]'),
  raw('a10', '{"bad":"', [0xff], '"}'),
  event('a11', 'usér.créé', '{"x":1}'),
  event('a12', 'quote"type', '{"x":1}'),
  'id: a13\nevent:\ndata: {"empty":"type"}\n\n',
  'id: a14\ndata: {"no":"type"}\n\n',
  'id: a15\n\n',
  'id: with\u0000nul\ndata: {"x":2}\n\n',
  'id: with\u0000nul\n\n',
  'event: offset-only\ndata: {"offset":"o16"}\n\n',
  'id: a17\nevent: error\ndata: {"error":{"code":"timeout","message":"slow"}}\n\n',
  'data: one\ndata: two\n\n',
  'id: a18\nid: a19\ndata: {"twice":"id"}\n\n',
  'retry: 500\nid: a20\nevent: user.created\ndata: {"after":"retry"}\n\n',
  'id: a21\r\nevent: user.created\r\ndata: {"crlf":1}\r\n\r\n',
  'id: a22\revent: user.created\rdata: {"cr":1}\r\r',
  'bogus: field\nid: a23\ndata: {"unknown":"field"}\n\n',
  'data\n\n',
  event('a24', 'user.created', `{"big":"${'x'.repeat(70_000)}"}`),
  event('a25', 'user.created', '{"after":"big"}'),
  // 64 levels with the object itself: the most event-payload.ts takes; then one more.
  event('a26', 'user.created', `{"deep":${'['.repeat(63)}${']'.repeat(63)}}`),
  event('a27', 'user.created', `{"deeper":${'['.repeat(64)}${']'.repeat(64)}}`),
  event('a28', 'user.created', '{"num":01}'),
  event('a29', 'user.created', '{"num":1.}'),
  event('a30', 'user.created', '{"lit":tru}'),
  event('a31', 'user.created', '{"x":1} '),
  event('a32', 'user.created', '{"x":1}{"y":2}'),
  event('a33', 'user.created', '{"open":"'),
  event('a34', 'user.created', '{"esc":"\\u12"}'),
  event('a35', 'user.created', '{"esc":"\\x"}'),
  raw('a36', '{"surrogate":"', [0xed, 0xa0, 0x80], '"}'),
  raw('a37', '{"overlong":"', [0xc0, 0xaf], '"}'),
  event('a38', 'user.created', '{"emoji":"🙂","cjk":"漢字"}'),
  event('a39', 'user.created', '{"key":1,}'),
  event('a40', 'user.created', '{,}'),
].map((part) => (typeof part === 'string' ? Buffer.from(part) : part));

describe('the event stream fast path', () => {
  const stream = Buffer.concat(MIXED);

  it('hands over the same messages as the parser, however the stream is cut', () => {
    const expected = byParser([[stream]]);
    expect(expected.messages.length).toBe(42);
    expect(expected.retries).toEqual([2000, 500]);
    for (const [size, perRun] of [
      [stream.length, 1],
      [1, 1],
      [1, 64],
      [7, 3],
      [100, 1],
      [1000, 5],
      [65_536, 1],
      [65_536, 4],
    ] as const) {
      const { fast, ...outcome } = byFramer(cut(stream, size, perRun));
      expect({ size, perRun, ...outcome }).toEqual({ size, perRun, ...expected });
      // In one piece, the fast path writes the lines of a1, a2, a3, the offset-only event, a17, a24, a25, a26, a38.
      if (size === stream.length) expect(fast).toBe(9);
      else expect(fast).toBeGreaterThan(0);
    }
  });

  it('takes the plain messages itself, and writes their lines as event-payload.ts does', () => {
    const plain = Buffer.from(
      ':connected\n\n' +
        event('p1', 'user.created', '{"a":"b"}') +
        event('p2', 'user.deleted', '{}') +
        event('p3', 'user.created', '{"a":[1,2,{"b":null}],"c":"é"}'),
    );
    const lines: Array<string | undefined> = [];
    const framer = createSseFramer(
      { message: (m) => lines.push(m.line && Buffer.concat(m.line).toString('utf8')), retry: () => {} },
      () => false,
    );
    framer.feed([plain]);
    expect(lines).toEqual([
      '{"type":"user.created","a":"b"}\n',
      '{"type":"user.deleted"}\n',
      '{"type":"user.created","a":[1,2,{"b":null}],"c":"é"}\n',
    ]);
  });

  it('keeps a run’s lines while the next run is fed, and lines of their own without reuseLines', () => {
    const runs = [
      [Buffer.from(`:connected\n\n${event('r1', 'user.created', '{"run":1}')}`)],
      [Buffer.from(event('r2', 'user.created', '{"run":2}'))],
      [Buffer.from(event('r3', 'user.created', '{"run":3}'))],
    ];
    for (const reuseLines of [true, false]) {
      const kept: Buffer[][] = [];
      const framer = createSseFramer({ message: (m) => kept.push([...(m.line ?? [])]), retry: () => {} }, () => false, {
        reuseLines,
      });
      framer.feed(runs[0]!);
      framer.feed(runs[1]!);
      const text = (k: number) => Buffer.concat(kept[k]!).toString('utf8');
      expect([text(0), text(1)]).toEqual(['{"type":"user.created","run":1}\n', '{"type":"user.created","run":2}\n']);
      framer.feed(runs[2]!);
      // With reuseLines the first run's line has been overwritten by the third's, as the contract says.
      expect(text(0)).toBe(reuseLines ? '{"type":"user.created","run":3}\n' : '{"type":"user.created","run":1}\n');
    }
  });

  it('stops handing over messages once told to stop', () => {
    const ids: Array<string | undefined> = [];
    const framer = createSseFramer({ message: (m) => ids.push(m.id), retry: () => {} }, () => ids.length >= 2);
    framer.feed([Buffer.from(event('s1', 'a', '{}') + event('s2', 'a', '{}') + event('s3', 'a', '{}'))]);
    expect(ids).toEqual(['s1', 's2']);
  });

  it('keeps the parser’s bounds: a line or an event over 4 MB fails as it does there', () => {
    const huge = Buffer.from(`id: h1\nevent: user.created\ndata: {"x":"${'y'.repeat(4 * 1024 * 1024)}"}\n\n`);
    const expected = byParser(cut(huge, 65_536, 4));
    expect(expected.error).toBe(new SseLimitError('line').message);
    const { fast: _, ...outcome } = byFramer(cut(huge, 65_536, 4));
    expect(outcome).toEqual(expected);
  });
});
