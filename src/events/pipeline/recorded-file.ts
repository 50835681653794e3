import { closeSync, fstatSync, read } from 'node:fs';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../api/json-answer.js';
import { CliError, interruption, UsageError } from '../../errors.js';
import { neutralize } from '../../text/sanitize.js';
import { openRegularFile } from '../../util/regular-file.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../stream/byte-codes.js';
import { eventLine, type RecordedLine, recordedLine } from '../stream/event-payload.js';
import { SSE_MAX_EVENT_BYTES } from '../stream/sse-parser.js';
import { envelopeIdOf, StreamEvent } from '../stream/stream-event.js';
import type { ItemSource, SourceEntry } from './pipeline.js';

/** A line that holds no event: its number and why, in a few words. */
export interface MalformedLine {
  readonly kind: 'malformed';
  readonly line: number;
  readonly reason: string;
}

/**
 * The longest line read: the largest event the stream brings (what is forwarded at most) inside a dead letter's
 * envelope.
 * A longer line is malformed, skipped without being kept in memory.
 */
export const MAX_RECORDED_LINE_BYTES = SSE_MAX_EVENT_BYTES + 64 * 1024;
const READ_BYTES = 64 * 1024;
/**
 * The stream's bound on an event's nesting (MAX_JSON_DEPTH, its object the first level), one level more for a dead
 * letter, whose envelope holds the event.
 */
const MAX_LINE_DEPTH = MAX_JSON_DEPTH + 1;
const TOO_DEEP = `nested more than ${MAX_JSON_DEPTH} levels deep`;
const NEWLINE = 0x0a;

/**
 * `events replay <file>`: a recorded NDJSON file as a source of the events pipeline, read in file order with flat
 * memory (a chunk at a time, a line at most MAX_RECORDED_LINE_BYTES). A line is an event's payload as `-o ndjson`
 * and `--output-file` write it, or a dead letter (`{"event":…,"attempts":…}`: the event inside). The position is the
 * number of the next line to read, so that `--from-line` resumes after what was settled.
 */
export class RecordedFile implements ItemSource<StreamEvent, number, MalformedLine> {
  readonly unsettledBatches = 0;
  /** Bytes read so far (those before `fromLine` included), and the file's size when it was opened: the progress. */
  bytesRead = 0;
  readonly size: number;
  /** Which file it is (its device and inode), to tell it from the files a run writes. */
  readonly dev: number;
  readonly ino: number;
  /**
   * Lines of the file read so far, those before `fromLine` included (counted when it was opened). Once the last batch
   * is taken, the number of lines the file has; less than `fromLine` then when there was nothing from it to replay
   * (`--from-line` one past the last line, as a resume line says once the last line was settled).
   */
  linesRead = 0;
  readonly #fd: number;
  /** Where line `fromLine` starts in the file. */
  #start = 0;

  private constructor(
    fd: number,
    readonly path: string,
    /** The first line to take (1-based): the lines before it are counted, never parsed. */
    readonly fromLine: number,
  ) {
    this.#fd = fd;
    ({ size: this.size, dev: this.dev, ino: this.ino } = fstatSync(fd));
  }

  /**
   * Opens the file before anything is sent: a missing or unreadable file, or one that is not regular, is exit 2; so is
   * a `fromLine` past the line after the last (the lines before it are counted as the file is read up to it, a
   * chunk at a time: a stop meanwhile ends there).
   */
  static async open(path: string, fromLine: number, signal: AbortSignal): Promise<RecordedFile> {
    let fd: number | undefined;
    try {
      fd = openRegularFile(path, { follow: true, what: 'the recorded file' });
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${neutralize(path)}: ${(err as Error).message}`, undefined, 'file_unreadable');
    }
    if (fd === undefined)
      throw new UsageError(`cannot read ${neutralize(path)}: no such file`, undefined, 'file_unreadable');
    const file = new RecordedFile(fd, path, fromLine);
    try {
      await file.#seek(signal);
    } catch (err) {
      closeSync(fd);
      if (err instanceof CliError) throw err;
      throw new UsageError(`cannot read ${neutralize(path)}: ${(err as Error).message}`, undefined, 'file_unreadable');
    }
    return file;
  }

  /**
   * Finds where line `fromLine` starts, counting the lines before it, before anything is sent: a `fromLine` past the
   * line after the last is a usage error (exit 2), never a run that says nothing
   * (docs/decisions/2026-11-28-from-line-past-the-end.md).
   */
  async #seek(signal: AbortSignal): Promise<void> {
    const before = this.fromLine - 1;
    if (before <= 0) return;
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    let position = 0;
    let lines = 0;
    /** Where the line after the last line break starts. */
    let lineStart = 0;
    for (;;) {
      if (signal.aborted) throw interruption(signal);
      const read = await readInto(this.#fd, buffer, 0, position);
      if (read === 0) break;
      const data = buffer.subarray(0, read);
      for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, at + 1)) {
        lines++;
        lineStart = position + at + 1;
        if (lines === before) {
          this.#startAt(lineStart, lines);
          return;
        }
      }
      position += read;
    }
    // The end came first: a last line without its line break counts too.
    const total = lines + (position > lineStart ? 1 : 0);
    if (total < before) {
      const count = `${total} ${total === 1 ? 'line' : 'lines'}`;
      throw new UsageError(`--from-line ${this.fromLine} is past the end of ${neutralize(this.path)}: it has ${count}`);
    }
    this.#startAt(position, total);
  }

  #startAt(offset: number, linesBefore: number): void {
    this.#start = offset;
    this.bytesRead = offset;
    this.linesRead = linesBefore;
  }

  positionOf(event: StreamEvent & { readonly next?: number }): number | undefined {
    return event.next;
  }

  /**
   * The file from line `fromLine`, a chunk at a time into one buffer used again for each read: an event's line points
   * into it (no copy), which is safe because the pipeline has settled a batch (`unsettledBatches` 0) before it asks
   * for the next one. The start of a line a read cut off is moved to the buffer's start; a line longer than the
   * buffer is gathered in copies.
   */
  async *batches(signal: AbortSignal): AsyncGenerator<SourceEntry<StreamEvent, number, MalformedLine>[]> {
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    /** Bytes of the unfinished line at the buffer's start. */
    let carried = 0;
    let line = this.fromLine;
    let position = this.#start;
    /** Earlier parts of a line longer than the buffer (copies), and their size. */
    let pieces: Buffer[] = [];
    let piecesSize = 0;
    /** Past MAX_RECORDED_LINE_BYTES: the rest of the line is skipped, not kept. */
    let overlong = false;
    try {
      for (;;) {
        if (signal.aborted) return;
        if (carried === buffer.length) {
          piecesSize += carried;
          if (piecesSize > MAX_RECORDED_LINE_BYTES) overlong = true;
          if (overlong) pieces = [];
          else pieces.push(Buffer.from(buffer));
          carried = 0;
        }
        const read = await readInto(this.#fd, buffer, carried, position);
        if (read === 0) break;
        position += read;
        this.bytesRead += read;
        const data = buffer.subarray(0, carried + read);
        const batch: SourceEntry<StreamEvent, number, MalformedLine>[] = [];
        let at = 0;
        for (let end = data.indexOf(NEWLINE, carried); end !== -1; end = data.indexOf(NEWLINE, at)) {
          if (overlong || piecesSize + (end - at) > MAX_RECORDED_LINE_BYTES) batch.push(...overlongLine(line));
          else {
            const bytes =
              pieces.length === 0 ? data.subarray(at, end) : Buffer.concat([...pieces, data.subarray(at, end)]);
            batch.push(...entriesOf(bytes, line));
          }
          pieces = [];
          piecesSize = 0;
          overlong = false;
          this.linesRead = line;
          line++;
          at = end + 1;
        }
        if (batch.length > 0) yield batch;
        // The batch is settled: the unfinished line moves to the buffer's start, over lines no longer needed (a line
        // already too long is not kept).
        if (overlong || piecesSize + (data.length - at) > MAX_RECORDED_LINE_BYTES) {
          overlong = true;
          pieces = [];
          carried = 0;
        } else {
          data.copyWithin(0, at);
          carried = data.length - at;
        }
      }
      // A last line without its line break.
      if (overlong || piecesSize + carried > 0) {
        this.linesRead = line;
        yield overlong ? overlongLine(line) : entriesOf(Buffer.concat([...pieces, buffer.subarray(0, carried)]), line);
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      throw new UsageError(
        `cannot read ${neutralize(this.path)}: ${(err as Error).message}`,
        undefined,
        'file_unreadable',
      );
    } finally {
      closeSync(this.#fd);
    }
  }
}

/** Reads into `buffer` from `at` to its end, the file's bytes from `position`: how many came (0 at its end). */
function readInto(fd: number, buffer: Buffer, at: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, at, buffer.length - at, position, (err, bytes) => (err ? reject(err) : resolve(bytes)));
  });
}

function overlongLine(line: number): SourceEntry<StreamEvent, number, MalformedLine>[] {
  return [malformed(line, `longer than ${MAX_RECORDED_LINE_BYTES} bytes`), { kind: 'cursor', offset: line + 1 }];
}

function malformed(line: number, reason: string): MalformedLine {
  return { kind: 'malformed', line, reason };
}

/** A recorded event: a StreamEvent that knows the line after it. */
class RecordedEvent extends StreamEvent {
  constructor(
    type: string,
    offset: string | undefined,
    line: readonly Buffer[],
    readonly next: number,
  ) {
    super(type, offset, line);
  }
}

/** A recorded event whose line was parsed: its envelope's id is known. */
class ParsedRecordedEvent extends RecordedEvent {
  constructor(
    type: string,
    offset: string | undefined,
    line: readonly Buffer[],
    next: number,
    readonly id: string | undefined,
  ) {
    super(type, offset, line, next);
  }

  override envelopeId(): string | undefined {
    return this.id;
  }
}

/**
 * What one line of the file holds: an event, or why it holds none (a blank line is passed over). A line as svcadm
 * writes it is taken as it stands (`recordedLine`); any other is parsed.
 */
function entriesOf(bytes: Buffer, line: number): SourceEntry<StreamEvent, number, MalformedLine>[] {
  const next = { kind: 'cursor' as const, offset: line + 1 };
  const recorded = recordedLine(bytes);
  if (recorded) return [new RecordedEvent(recorded.type, recorded.offset, recorded.line, line + 1)];
  const text = bytes.toString('utf8').trim();
  if (text === '') return [next];
  // Before any parse: JSON.stringify of a dead letter's event (and every walk of a value) recurses, and a line of
  // 20 KB nested 5,000 levels overflowed the stack.
  if (nestsDeeperThan(text, MAX_LINE_DEPTH)) return [malformed(line, TOO_DEEP), next];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return [malformed(line, `not JSON (${(err as Error).message})`), next];
  }
  if (!isObject(value)) return [malformed(line, 'not a JSON object'), next];
  // A dead letter: the event inside, as it stands when svcadm wrote it (the bytes first POSTed).
  const payload = isObject(value.event) && 'attempts' in value && 'error' in value ? value.event : value;
  const inside = payload === value ? undefined : deadLetterEvent(bytes, payload);
  if (inside) return [new RecordedEvent(inside.type, inside.offset, inside.line, line + 1)];
  const { type, offset } = payload;
  if (typeof type !== 'string' || type === '') return [malformed(line, 'no "type": not an event'), next];
  const eventOffset = typeof offset === 'string' ? offset : undefined;
  const pieces = eventLine(type, Buffer.from(payload === value ? text : JSON.stringify(payload)), payload);
  if (!pieces) return [malformed(line, TOO_DEEP), next];
  return [new ParsedRecordedEvent(type, eventOffset, pieces as Buffer[], line + 1, envelopeIdOf(payload))];
}

const DEAD_LETTER_START = Buffer.from('{"event":');

/**
 * The event of a dead letter as svcadm writes it (`{"event":<the event's line>,"offset":…`), taken as it stands when
 * it is a line `recordedLine` takes: the app is sent again the bytes it was sent first, so that an event keyed by the
 * SHA-256 of its payload keeps its `Idempotency-Key`, and a number the service wrote `1.0` stays so. Undefined for
 * any other dead letter (written by hand, or holding what JSON.parse read otherwise: a duplicate `event` key); the
 * caller writes its event again from the parse.
 */
function deadLetterEvent(bytes: Buffer, payload: Record<string, unknown>): RecordedLine | undefined {
  if (bytes.compare(DEAD_LETTER_START, 0, DEAD_LETTER_START.length, 0, DEAD_LETTER_START.length) !== 0)
    return undefined;
  const end = objectEnd(bytes, DEAD_LETTER_START.length);
  if (end < 0 || bytes[end] !== COMMA) return undefined;
  const event = bytes.subarray(DEAD_LETTER_START.length, end);
  const recorded = recordedLine(event);
  if (!recorded || JSON.stringify(JSON.parse(event.toString('utf8'))) !== JSON.stringify(payload)) return undefined;
  return recorded;
}

/** The index after the object that opens at `start` of valid JSON text (strings skipped), or -1. */
function objectEnd(bytes: Buffer, start: number): number {
  if (bytes[start] !== OPEN_OBJECT) return -1;
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      for (i++; i < bytes.length && bytes[i] !== QUOTE; i++) if (bytes[i] === BACKSLASH) i++;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
  return -1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
