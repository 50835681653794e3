import { COLON, CR, LF, SPACE } from './byte-codes.js';
/**
 * How much of an event stream svcadm holds at once, whatever the server sends: one line, and the data of one
 * event, at most 4 MB each (four times the largest payload the service accepts).
 */
export const SSE_MAX_LINE_BYTES = 4 * 1024 * 1024;
export const SSE_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** One message of the stream, as the Server-Sent Events format defines it. */
export interface SseMessage {
  /** The `id:` field of this message, when it had one. */
  id: string | undefined;
  /** The `event:` field; `message` when absent. */
  event: string;
  /** Whether the message had a `data:` line at all (`data:` with nothing after it still counts). */
  hasData: boolean;
  /** The `data:` lines joined by line feeds, as bytes; only valid during the `message` call. */
  data: Buffer;
  /** The data's NDJSON line (`eventLine`), when the fast path (sse-fast-path.ts) already made it. */
  line?: readonly Buffer[] | undefined;
}

export interface SseHandlers {
  message(message: SseMessage): void;
  /** A `retry:` field: the reconnection time the server asks for, in milliseconds. */
  retry(ms: number): void;
  /**
   * Asked after each line: once true, `feed` reads no further and returns the index after that line. What follows a
   * stop (a line past the bounds, say) is never read, so it cannot fail the stream that stopped.
   */
  stop?(): boolean;
}

/** The stream broke one of the bounds: the connection should be dropped. */
export class SseLimitError extends Error {
  constructor(readonly what: 'line' | 'event') {
    const mb = (what === 'line' ? SSE_MAX_LINE_BYTES : SSE_MAX_EVENT_BYTES) / 1024 / 1024;
    super(`it sent ${what === 'line' ? 'a line longer' : 'an event larger'} than ${mb} MB`);
  }
}

const EMPTY = Buffer.alloc(0);
const NEWLINE = Buffer.of(LF);
/** UTF-8's byte order mark: dropped at the start of the stream, even when it comes in more than one chunk. */
const BOM = Buffer.of(0xef, 0xbb, 0xbf);

function fieldIs(line: Buffer, start: number, length: number, name: string): boolean {
  if (length !== name.length) return false;
  for (let i = 0; i < length; i++) if (line[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * A bounded Server-Sent Events parser over bytes (the stream is UTF-8; svcadm never needs most of it as text).
 * Lines end in LF, CR or CRLF; a line or an event's data beyond the bounds throws `SseLimitError`, after the
 * messages completed before it in the same chunk have been handed over.
 */
export class SseParser {
  readonly #handlers: SseHandlers;
  /** The start of a line that has not ended yet, in pieces (joined once, when it ends). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #data: Buffer[] = [];
  #dataBytes = 0;
  #hasData = false;
  #event: string | undefined;
  #id: string | undefined;
  /** The last chunk ended in CR: a LF starting the next one belongs to the same line end. */
  #afterCR = false;
  /** Bytes of a byte order mark matched at the start of the stream so far; -1 once past the start. */
  #bom = 0;
  #lastEventBytes = EMPTY;
  #lastEventName = '';

  constructor(handlers: SseHandlers) {
    this.#handlers = handlers;
  }

  /**
   * Takes the next bytes of the stream. With `untilMessageEnd`, stops after the first blank line that ends in LF (a
   * message boundary where nothing is pending) and returns the index in `input` after it; undefined when it took all.
   */
  feed(input: Buffer, untilMessageEnd = false): number | undefined {
    let chunk = input;
    let skipped = 0;
    if (this.#bom >= 0 && chunk.length > 0) {
      const before = this.#bom;
      let k = 0;
      while (this.#bom < BOM.length && k < chunk.length && chunk[k] === BOM[this.#bom]) {
        this.#bom++;
        k++;
      }
      if (this.#bom === BOM.length) {
        chunk = chunk.subarray(k);
        skipped = k;
        this.#bom = -1;
      } else if (k === chunk.length) {
        return undefined; // all of it may be the start of a byte order mark: the next chunk tells
      } else {
        // Not a byte order mark after all: the bytes held for one (from earlier chunks) begin the first line.
        this.#bom = -1;
        if (before > 0) {
          this.#pending.push(BOM.subarray(0, before));
          this.#pendingBytes += before;
        }
      }
    }
    // Nothing to read: a CR that ended the chunk before still waits for the LF that may start the next.
    if (chunk.length === 0) return undefined;
    let start = 0;
    if (this.#afterCR && chunk[0] === LF) start = 1;
    this.#afterCR = false;
    // The next CR, looked up again only once passed: most streams have none.
    let cr = chunk.indexOf(CR, start);
    while (start < chunk.length) {
      let end = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
      if (cr !== -1 && (end === -1 || cr < end)) end = cr;
      if (end === -1) break;
      if (this.#pendingBytes > 0) {
        this.#checkLine(this.#pendingBytes + end - start);
        this.#pending.push(chunk.subarray(start, end));
        const line = Buffer.concat(this.#pending, this.#pendingBytes + end - start);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#line(line, 0, line.length);
      } else {
        this.#checkLine(end - start);
        this.#line(chunk, start, end);
        if (untilMessageEnd && start === end && chunk[end] === LF) return skipped + end + 1;
      }
      if (chunk[end] === CR) {
        if (end + 1 === chunk.length) this.#afterCR = true;
        else if (chunk[end + 1] === LF) end++;
      }
      start = end + 1;
      if (this.#handlers.stop?.()) return skipped + start;
    }
    if (start < chunk.length) {
      this.#checkLine(this.#pendingBytes + chunk.length - start);
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
    }
    return undefined;
  }

  #checkLine(bytes: number): void {
    if (bytes > SSE_MAX_LINE_BYTES) throw new SseLimitError('line');
  }

  #line(line: Buffer, start: number, end: number): void {
    if (start === end) {
      this.#dispatch();
      return;
    }
    if (line[start] === COLON) return; // a comment
    // The fields svcadm reads have names of at most 5 bytes: look no further for the colon.
    let colon = end;
    for (let i = start; i < end && i <= start + 5; i++) {
      if (line[i] === COLON) {
        colon = i;
        break;
      }
    }
    let valueStart = colon + 1;
    if (valueStart < end && line[valueStart] === SPACE) valueStart++;
    const nameLength = colon - start;
    if (fieldIs(line, start, nameLength, 'data')) {
      const value = valueStart <= end ? line.subarray(valueStart, end) : EMPTY;
      const bytes = this.#dataBytes + (this.#hasData ? 1 : 0) + value.length;
      if (bytes > SSE_MAX_EVENT_BYTES) throw new SseLimitError('event');
      if (this.#hasData) this.#data.push(NEWLINE);
      this.#data.push(value);
      this.#dataBytes = bytes;
      this.#hasData = true;
    } else if (fieldIs(line, start, nameLength, 'event')) {
      this.#event = this.#eventName(line, valueStart, end);
    } else if (fieldIs(line, start, nameLength, 'id')) {
      const value = line.toString('utf8', valueStart, end);
      if (!value.includes('\u0000')) this.#id = value;
    } else if (fieldIs(line, start, nameLength, 'retry')) {
      const value = line.toString('latin1', valueStart, end);
      if (/^\d{1,16}$/.test(value)) this.#handlers.retry(Number(value));
    }
  }

  /** The `event:` value as a string, decoded once for a run of messages of the same type. */
  #eventName(line: Buffer, start: number, end: number): string {
    const last = this.#lastEventBytes;
    let same = last.length === end - start;
    for (let i = 0; same && i < last.length; i++) same = last[i] === line[start + i];
    if (!same) {
      this.#lastEventBytes = Buffer.from(line.subarray(start, end));
      this.#lastEventName = this.#lastEventBytes.toString('utf8');
    }
    return this.#lastEventName;
  }

  /** A blank line ends a message; one with neither data nor an id carries nothing (SSE drops it too). */
  #dispatch(): void {
    if (this.#hasData || this.#id !== undefined) {
      const data = this.#data.length === 1 ? (this.#data[0] as Buffer) : Buffer.concat(this.#data, this.#dataBytes);
      this.#handlers.message({ id: this.#id, event: this.#event || 'message', hasData: this.#hasData, data });
    }
    this.#data.length = 0;
    this.#dataBytes = 0;
    this.#hasData = false;
    this.#event = undefined;
    this.#id = undefined;
  }
}
