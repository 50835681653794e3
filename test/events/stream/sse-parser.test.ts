import { describe, expect, it } from 'vitest';
import {
  SSE_MAX_EVENT_BYTES,
  SSE_MAX_LINE_BYTES,
  SseLimitError,
  SseParser,
} from '../../../src/events/stream/sse-parser.js';

interface Seen {
  id: string | undefined;
  event: string;
  hasData: boolean;
  data: string;
}

/** Parses `chunks` in order; returns the messages and retries seen, and the error thrown if any. */
function parse(chunks: readonly (string | Buffer)[]) {
  const messages: Seen[] = [];
  const retries: number[] = [];
  const parser = new SseParser({
    message: (m) => messages.push({ id: m.id, event: m.event, hasData: m.hasData, data: m.data.toString('utf8') }),
    retry: (ms) => retries.push(ms),
  });
  let error: unknown;
  try {
    for (const chunk of chunks) parser.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } catch (err) {
    error = err;
  }
  return { messages, retries, error };
}

const STREAM =
  '\ufeff:connected\nretry: 2000\n\nid: a1\nevent: user.created\ndata: {"x":1}\n\n' +
  'data: first\r\ndata:second\r\ndata\r\n\r\n: comment\rid: a2\revent:offset-only\rdata: {}\r\r' +
  'id: a3\n\nid: with\u0000nul\ndata: d\n\nretry: soon\nbogus: field\nevent\ndata: é🙂\n\n';

const EXPECTED: Seen[] = [
  { id: 'a1', event: 'user.created', hasData: true, data: '{"x":1}' },
  { id: undefined, event: 'message', hasData: true, data: 'first\nsecond\n' },
  { id: 'a2', event: 'offset-only', hasData: true, data: '{}' },
  { id: 'a3', event: 'message', hasData: false, data: '' },
  { id: undefined, event: 'message', hasData: true, data: 'd' },
  { id: undefined, event: 'message', hasData: true, data: 'é🙂' },
];

describe('SseParser', () => {
  it('reads LF, CR and CRLF lines, comments, a BOM, fields without a value, and drops ids with NUL', () => {
    const { messages, retries, error } = parse([STREAM]);
    expect(error).toBeUndefined();
    expect(messages).toEqual(EXPECTED);
    expect(retries).toEqual([2000]);
  });

  it('gives the same messages however the bytes are cut into chunks', () => {
    const bytes = Buffer.from(STREAM);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).messages, `cut at ${cut}`).toEqual(EXPECTED);
    }
    const oneByOne = Array.from(bytes, (b) => Buffer.of(b));
    expect(parse(oneByOne).messages).toEqual(EXPECTED);
  });

  it('throws on a line longer than 4 MB, after the messages completed before it in the same chunk', () => {
    const big = Buffer.alloc(SSE_MAX_LINE_BYTES + 1, 'x');
    const { messages, error } = parse(['id: a\ndata: {}\n\n', Buffer.concat([Buffer.from('data: '), big])]);
    expect(messages).toEqual([{ id: 'a', event: 'message', hasData: true, data: '{}' }]);
    expect(error).toBeInstanceOf(SseLimitError);
    expect((error as Error).message).toBe('it sent a line longer than 4 MB');
  });

  it('throws on a line that grows past 4 MB over many chunks, holding no more than that', () => {
    const chunks = ['data: ', ...Array.from({ length: 80 }, () => Buffer.alloc(64 * 1024, 'x'))];
    expect((parse(chunks).error as Error).message).toBe('it sent a line longer than 4 MB');
  });

  it('throws on an event whose data lines add up to more than 4 MB', () => {
    const line = `data: ${'y'.repeat(64 * 1024)}\n`;
    const lines = Math.ceil(SSE_MAX_EVENT_BYTES / line.length) + 1;
    const { messages, error } = parse(['data: ok\n\n', line.repeat(lines)]);
    expect(messages).toHaveLength(1);
    expect((error as Error).message).toBe('it sent an event larger than 4 MB');
  });
});
