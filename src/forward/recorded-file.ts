import { createReadStream, fstatSync } from 'node:fs';
import { eventLine } from '../api/event-payload.js';
import { envelopeIdOf, StreamEvent } from '../api/events.js';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { openRegularFile } from '../util/regular-file.js';
import { MAX_FORWARD_BYTES } from './forwarder.js';
import type { ItemSource, SourceEntry } from './pipeline.js';

/** A line that holds no event: its number and why, in a few words. */
export interface MalformedLine {
  readonly kind: 'malformed';
  readonly line: number;
  readonly reason: string;
}

/**
 * The longest line read: the largest event the stream brings (MAX_FORWARD_BYTES) inside a dead letter's envelope.
 * A longer line is malformed, skipped without being kept in memory.
 */
export const MAX_RECORDED_LINE_BYTES = MAX_FORWARD_BYTES + 64 * 1024;
const READ_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * `events replay <file>`: a recorded NDJSON file as a source of the events pipeline, read in file order with flat
 * memory (a chunk at a time, a line at most MAX_RECORDED_LINE_BYTES). A line is an event's payload as `-o ndjson`
 * and `--output-file` write it, or a dead letter (`{"event":…,"attempts":…}`: the event inside). The position is the
 * number of the next line to read, so that `--from-line` resumes after what was settled.
 */
export class RecordedFile implements ItemSource<StreamEvent, number, MalformedLine> {
  readonly unsettledBatches = 0;
  /** Bytes read so far, and the file's size when it was opened: the progress. */
  bytesRead = 0;
  readonly size: number;
  readonly #fd: number;

  private constructor(
    fd: number,
    readonly path: string,
    /** The first line to take (1-based): the lines before it are skipped unread. */
    readonly fromLine: number,
  ) {
    this.#fd = fd;
    this.size = fstatSync(fd).size;
  }

  /** Opens the file before anything is sent: a missing or unreadable file, or one that is not regular, is exit 2. */
  static open(path: string, fromLine = 1): RecordedFile {
    let fd: number | undefined;
    try {
      fd = openRegularFile(path, { follow: true, what: 'the recorded file' });
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${neutralize(path)}: ${(err as Error).message}`, undefined, 'file_unreadable');
    }
    if (fd === undefined)
      throw new UsageError(`cannot read ${neutralize(path)}: no such file`, undefined, 'file_unreadable');
    return new RecordedFile(fd, path, fromLine);
  }

  positionOf(event: StreamEvent & { readonly next?: number }): number | undefined {
    return event.next;
  }

  async *batches(signal: AbortSignal): AsyncGenerator<SourceEntry<StreamEvent, number, MalformedLine>[]> {
    const stream = createReadStream('', { fd: this.#fd, highWaterMark: READ_BYTES, signal });
    let line = 1;
    /** The pieces of the line under way, and their size; `overlong` once it went past the bound. */
    let pieces: Buffer[] = [];
    let size = 0;
    let overlong = false;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        this.bytesRead += chunk.length;
        const batch: SourceEntry<StreamEvent, number, MalformedLine>[] = [];
        let at = 0;
        while (at < chunk.length) {
          const end = chunk.indexOf(NEWLINE, at);
          if (end === -1) {
            if (line >= this.fromLine && !overlong) {
              size += chunk.length - at;
              if (size > MAX_RECORDED_LINE_BYTES) {
                overlong = true;
                pieces = [];
              } else pieces.push(chunk.subarray(at));
            }
            break;
          }
          if (line >= this.fromLine) {
            if (overlong || size + (end - at) > MAX_RECORDED_LINE_BYTES) {
              batch.push(malformed(line, `longer than ${MAX_RECORDED_LINE_BYTES} bytes`), {
                kind: 'cursor',
                offset: line + 1,
              });
            } else {
              const bytes =
                pieces.length === 0 ? chunk.subarray(at, end) : Buffer.concat([...pieces, chunk.subarray(at, end)]);
              batch.push(...entriesOf(bytes, line));
            }
          }
          pieces = [];
          size = 0;
          overlong = false;
          line++;
          at = end + 1;
        }
        if (batch.length > 0) yield batch;
      }
      // A last line without its line break.
      if (line >= this.fromLine && (overlong || size > 0)) {
        const bytes = Buffer.concat(pieces);
        yield overlong
          ? [malformed(line, `longer than ${MAX_RECORDED_LINE_BYTES} bytes`), { kind: 'cursor', offset: line + 1 }]
          : entriesOf(bytes, line);
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      throw new UsageError(
        `cannot read ${neutralize(this.path)}: ${(err as Error).message}`,
        undefined,
        'file_unreadable',
      );
    } finally {
      stream.destroy();
    }
  }
}

function malformed(line: number, reason: string): MalformedLine {
  return { kind: 'malformed', line, reason };
}

/** A recorded event: a StreamEvent that knows the line after it, and its envelope's id (its line was parsed). */
class RecordedEvent extends StreamEvent {
  constructor(
    type: string,
    offset: string | undefined,
    line: readonly Buffer[],
    readonly next: number,
    readonly id: string | undefined,
  ) {
    super(type, offset, line);
  }

  override envelopeId(): string | undefined {
    return this.id;
  }
}

/** What one line of the file holds: an event, or why it holds none (a blank line is passed over). */
function entriesOf(bytes: Buffer, line: number): SourceEntry<StreamEvent, number, MalformedLine>[] {
  const next = { kind: 'cursor' as const, offset: line + 1 };
  const text = bytes.toString('utf8').trim();
  if (text === '') return [next];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return [malformed(line, `not JSON (${(err as Error).message})`), next];
  }
  if (!isObject(value)) return [malformed(line, 'not a JSON object'), next];
  // A dead letter: the event inside.
  const payload = isObject(value.event) && 'attempts' in value && 'error' in value ? value.event : value;
  const { type, offset } = payload;
  if (typeof type !== 'string' || type === '') return [malformed(line, 'no "type": not an event'), next];
  const eventOffset = typeof offset === 'string' ? offset : undefined;
  const pieces = eventLine(type, Buffer.from(payload === value ? text : JSON.stringify(payload)), payload);
  if (!pieces) return [malformed(line, 'not an event (nested too deep)'), next];
  return [new RecordedEvent(type, eventOffset, pieces as Buffer[], line + 1, envelopeIdOf(payload))];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
