import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../src/error-codes.js';
import { CliError, NetworkError } from '../../../src/errors.js';
import type { SseMessage } from '../../../src/events/stream/sse-parser.js';
import { StreamEvent, type TailItem } from '../../../src/events/stream/stream-event.js';
import { StreamInterpreter } from '../../../src/events/stream/stream-messages.js';

// The stream's messages read without a socket, a clock or a reconnect: messages in, items out.

/** One SSE message as the parser hands it over. */
function message(id: string | undefined, event: string, data?: string): SseMessage {
  return { id, event, hasData: data !== undefined, data: Buffer.from(data ?? '') };
}

/** What a connection's messages produced, with events as their type, offset and line. */
function feed(interpreter: StreamInterpreter, ...messages: SseMessage[]): unknown[] {
  for (const m of messages) interpreter.message(m);
  return interpreter.take().map(shown);
}

function shown(item: TailItem): unknown {
  if (item instanceof StreamEvent) {
    return { event: item.type, offset: item.offset, line: Buffer.concat(item.line).toString('utf8') };
  }
  return item;
}

describe('the stream interpreter', () => {
  it('adopts each event id as the position, puts the type first, and moves on offset-only and bare ids', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    expect(
      feed(
        stream,
        message('o1', 'user.created', '{"offset":"o1","event":{"id":"e1"}}'),
        message(undefined, 'offset-only', '{"offset":"o2"}'),
        message('o3', 'message'),
        message(undefined, 'user.deleted', '{"offset":"o4","event":{"id":"e4"}}'),
      ),
    ).toEqual([
      { event: 'user.created', offset: 'o1', line: '{"type":"user.created","offset":"o1","event":{"id":"e1"}}\n' },
      { kind: 'cursor', offset: 'o2' },
      { kind: 'cursor', offset: 'o3' },
      // Without an id, the offset of the data.
      { event: 'user.deleted', offset: 'o4', line: '{"type":"user.deleted","offset":"o4","event":{"id":"e4"}}\n' },
    ]);
    expect(stream.cursor).toBe('o4');
    expect(stream.sawEvent).toBe(true);
    expect(stream.ended).toBe(false);
  });

  it('never moves back: a repeat is dropped with one warning, and is no progress', () => {
    const stream = new StreamInterpreter('o1');
    stream.startConnection();
    expect(
      feed(
        stream,
        message('o1', 'user.created', '{"offset":"o1"}'),
        message('o2', 'user.created', '{"offset":"o2"}'),
        message('o2', 'user.created', '{"offset":"o2"}'),
        message(undefined, 'offset-only', '{"offset":"o2"}'),
      ),
    ).toEqual([
      {
        kind: 'warning',
        message: 'the service sent events again that were already seen; dropping repeats',
      },
      { event: 'user.created', offset: 'o2', line: '{"type":"user.created","offset":"o2"}\n' },
    ]);
    stream.startConnection();
    expect(feed(stream, message('o1', 'user.created', '{"offset":"o1"}'))).toEqual([]);
    expect(stream.sawEvent).toBe(false);
    expect(stream.cursor).toBe('o2');
  });

  it('keeps an offset that is not a cursor out of the position, with one warning', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    expect(
      feed(
        stream,
        message('o 1', 'user.created', '{}'),
        message('o 2', 'user.created', '{"a":1}'),
        message(undefined, 'offset-only', `{"offset":"${'x'.repeat(1025)}"}`),
      ),
    ).toEqual([
      { kind: 'warning', message: 'ignored an event offset that is not 1 to 1024 visible ASCII characters' },
      { event: 'user.created', offset: undefined, line: '{"type":"user.created"}\n' },
      { event: 'user.created', offset: undefined, line: '{"type":"user.created","a":1}\n' },
    ]);
    expect(stream.cursor).toBeUndefined();
  });

  it('skips data that is not a JSON object (or nests too deep), with a warning, past its position', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    const deep = `{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(
      feed(stream, message('o1', 'user.created', 'not json'), message('o2', `user.${'x'.repeat(300)}`, deep)),
    ).toEqual([
      { kind: 'warning', message: 'skipped a user.created message whose data is not a JSON object' },
      { kind: 'cursor', offset: 'o1' },
      { kind: 'warning', message: `skipped a user.${'x'.repeat(195)}… message whose data is not a JSON object` },
      { kind: 'cursor', offset: 'o2' },
    ]);
  });

  it('takes a transient error from its offset and ends the connection with it', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    expect(
      feed(stream, message(undefined, 'error', '{"error":{"code":"timeout","message":"slow","offset":"b"}}')),
    ).toEqual([
      { kind: 'cursor', offset: 'b' },
      { kind: 'stream-error', code: 'timeout', message: 'slow', fatal: false },
    ]);
    expect(stream.ended).toBe(true);
    expect(stream.endedBy).toEqual(new NetworkError('stream error timeout: slow'));
    expect(stream.fatal).toBeUndefined();
    expect(stream.cursor).toBe('b');
    // A new connection starts clean.
    stream.startConnection();
    expect(stream.ended).toBe(false);
    expect(stream.endedBy).toBeUndefined();
  });

  it('ends the subscription on a refused cursor, without moving to its offset', () => {
    const stream = new StreamInterpreter('a');
    stream.startConnection();
    expect(
      feed(stream, message(undefined, 'error', '{"error":{"code":"cursor_expired","message":"gone","offset":"b"}}')),
    ).toEqual([{ kind: 'stream-error', code: 'cursor_expired', message: 'gone', fatal: true }]);
    expect(stream.fatal).toBeInstanceOf(CliError);
    expect(stream.fatal?.message).toBe('the cursor has expired: gone');
    expect(stream.fatal?.reason).toBe('cursor_expired');
    expect(exitCodeFor(stream.fatal)).toBe(8);
    expect(stream.cursor).toBe('a');
    expect(stream.ended).toBe(true);
  });

  it('reads an error without the service shape as its data, clipped, with the code unknown', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    const long = 'z'.repeat(500);
    expect(feed(stream, message(undefined, 'error', long))).toEqual([
      { kind: 'stream-error', code: 'unknown', message: `${'z'.repeat(200)}…`, fatal: false },
    ]);
    expect(feed(stream, message(undefined, 'error', '{"code":"invalid_cursor","message":"no such cursor"}'))).toEqual([
      { kind: 'stream-error', code: 'invalid_cursor', message: 'no such cursor', fatal: true },
    ]);
    expect(stream.fatal?.message).toBe('the service rejected the cursor: no such cursor');
  });

  it('follows a rotation silently: its offset, no stream error, the connection ended', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    expect(
      feed(
        stream,
        message('c1', 'user.created', '{}'),
        message(undefined, 'error', '{"error":{"code":"connection_timeout","message":"rotate","offset":"c2"}}'),
      ),
    ).toEqual([
      { event: 'user.created', offset: 'c1', line: '{"type":"user.created"}\n' },
      { kind: 'cursor', offset: 'c2' },
    ]);
    expect(stream.rotated).toBe(true);
    expect(stream.ended).toBe(true);
    expect(stream.endedBy).toBeUndefined();
    stream.startConnection();
    expect(stream.rotated).toBe(false);
    expect(stream.sawEvent).toBe(false);
  });

  it('hands over each item once', () => {
    const stream = new StreamInterpreter(undefined);
    stream.startConnection();
    stream.message(message('o1', 'offset-only'));
    expect(stream.pending).toBe(true);
    expect(stream.take()).toEqual([{ kind: 'cursor', offset: 'o1' }]);
    expect(stream.pending).toBe(false);
    expect(stream.take()).toEqual([]);
  });
});
