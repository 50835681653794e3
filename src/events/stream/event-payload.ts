import { MAX_JSON_DEPTH } from '../../api/json-answer.js';
import { escapeJsonText, isUnsafeCodePoint } from '../../text/sanitize.js';
import { BACKSLASH, COMMA, QUOTE } from './byte-codes.js';

/**
 * An event's payload as one NDJSON line, in pieces to write one after the other: the `data:` JSON object with
 * `type` (from the SSE `event:` field) first, compact, with nothing a terminal could act on, ending in a line break.
 * `undefined` when the data is not a valid JSON object in UTF-8, nested at most MAX_JSON_DEPTH levels: such an
 * event is skipped, never printed.
 *
 * Almost every event is already compact and plain: it is then written as it came, behind the type, without a copy
 * (the pieces are `{"type":"…",`, the data after its `{`, and the line break). One pass over the bytes checks that;
 * parsing every event would cost about twice the whole tail. A character to escape is escaped where it stands;
 * only an event with white space between tokens or a `type` key of its own is parsed and written again.
 */
export function eventLine(
  type: string,
  data: Buffer,
  /** `data` parsed, when the caller has parsed it already (a recorded line): not parsed again. */
  parsed?: Record<string, unknown>,
): readonly Buffer[] | undefined {
  const verdict = scan(data);
  if (verdict === INVALID) return undefined;
  if (verdict & RESHAPE) return [reshape(type, data, parsed)];
  // Valid data without white space between tokens: `{}` is exactly two bytes.
  const prefix = typePrefix(type, data.length > 2);
  if (verdict & ESCAPE) return [prefix, Buffer.from(`${escapeJsonText(data.toString('utf8', 1))}\n`)];
  return [prefix, data.subarray(1), NEWLINE];
}

/** A recorded line that is an event's line as svcadm writes it: its type, its offset, and the line's pieces. */
export interface RecordedLine {
  readonly type: string;
  readonly offset: string;
  readonly line: readonly Buffer[];
}

const RECORDED_TYPE = Buffer.from('{"type":"');
const RECORDED_OFFSET = Buffer.from('","offset":"');

/**
 * A line of a recorded file (`events replay`) taken as it stands, when it is exactly what `eventLine` makes of an
 * event with the service's usual payload: `{"type":"…","offset":"…",` (both plain printable ASCII), then the rest of
 * a valid, compact object with nothing to escape and no other `type`, `offset` or `attempts` key at its top level (so
 * neither two values for one key nor a dead letter). Its pieces are the line itself, no copy: the app is sent the
 * bytes the tail sent. `undefined` for any other line: the caller parses it.
 */
export function recordedLine(bytes: Buffer): RecordedLine | undefined {
  if (!startsAt(bytes, RECORDED_TYPE, 0)) return undefined;
  const typeEnd = plainStringEnd(bytes, RECORDED_TYPE.length);
  if (typeEnd <= RECORDED_TYPE.length || !startsAt(bytes, RECORDED_OFFSET, typeEnd)) return undefined;
  const offsetStart = typeEnd + RECORDED_OFFSET.length;
  const offsetEnd = plainStringEnd(bytes, offsetStart);
  if (offsetEnd < 0 || bytes[offsetEnd + 1] !== COMMA) return undefined;
  if (scan(bytes, offsetEnd + 2) !== VALID) return undefined;
  return {
    type: bytes.toString('latin1', RECORDED_TYPE.length, typeEnd),
    offset: bytes.toString('latin1', offsetStart, offsetEnd),
    line: [bytes, NEWLINE],
  };
}

function startsAt(bytes: Buffer, part: Buffer, at: number): boolean {
  return bytes.length >= at + part.length && bytes.compare(part, 0, part.length, at, at + part.length) === 0;
}

/** The index of the quote that ends a string of printable ASCII (no escape) starting at `from`, or -1. */
function plainStringEnd(b: Buffer, from: number): number {
  for (let i = from; i < b.length; i++) {
    const c = b[i] as number;
    if (c === QUOTE) return i;
    if (c < 0x20 || c > 0x7e || c === BACKSLASH) return -1;
  }
  return -1;
}

/** What `scan` found: INVALID, or VALID with what must change before printing. */
const INVALID = 0;
const VALID = 1;
/** A character a terminal could act on, inside a string: escaped where it stands. */
const ESCAPE = 2;
/** White space between tokens, or a `type` key of its own: parsed and written again. */
const RESHAPE = 4;

const NEWLINE = Buffer.from('\n');

/** Bytes that end a plain run inside a string: quote, backslash, controls, DEL and all of non-ASCII. */
const STRING_STOP = new Uint8Array(256);
STRING_STOP[QUOTE] = 1;
STRING_STOP[BACKSLASH] = 1;
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
for (let c = 0x7f; c < 0x100; c++) STRING_STOP[c] = 1;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** What the scanner expects next. */
enum Expect {
  Value = 0,
  /** A `,` or the end of the container. */
  After = 1,
  /** The first key of an object, or `}`. */
  FirstKey = 2,
  Key = 3,
  /** The first value of an array, or `]`. */
  FirstValue = 4,
}

const OBJECT = 1;
const ARRAY = 2;
const containers = new Uint8Array(MAX_JSON_DEPTH + 1);

/**
 * One pass over a JSON text that must be an object: INVALID, or VALID with ESCAPE and RESHAPE as needed. `resumeAt`:
 * where a key of the top-level object starts, the bytes before it already read (`recordedLine`); a top-level
 * `offset` or `attempts` key then counts as RESHAPE too.
 */
function scan(b: Buffer, resumeAt?: number): number {
  const end = b.length;
  let i = 0;
  let flags = VALID;
  let depth = 0;
  let expect: Expect = Expect.Value;
  if (resumeAt === undefined) {
    while (i < end && isSpace(b[i] as number)) {
      flags |= RESHAPE;
      i++;
    }
    if (b[i] !== 0x7b) return INVALID;
  } else {
    i = resumeAt;
    depth = 1;
    containers[1] = OBJECT;
    expect = Expect.Key;
  }
  while (i < end) {
    let c = b[i] as number;
    if (c === QUOTE) {
      const keyStart = i;
      let escaped = false;
      i++;
      for (;;) {
        // Four bytes a step while they are plain (most of an event is string content), then one by one. Bounded
        // explicitly: letting the read run past the end as a sentinel makes V8 take its slow path.
        while (
          i + 3 < end &&
          ((STRING_STOP[b[i] as number] as number) |
            (STRING_STOP[b[i + 1] as number] as number) |
            (STRING_STOP[b[i + 2] as number] as number) |
            (STRING_STOP[b[i + 3] as number] as number)) ===
            0
        ) {
          i += 4;
        }
        while (i < end && STRING_STOP[b[i] as number] === 0) i++;
        if (i >= end) return INVALID;
        c = b[i] as number;
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          escaped = true;
          c = b[i + 1] as number;
          if (c === 0x75) {
            if (!(isHex(b[i + 2] as number) && isHex(b[i + 3] as number))) return INVALID;
            if (!(isHex(b[i + 4] as number) && isHex(b[i + 5] as number))) return INVALID;
            i += 6;
          } else if (c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e) {
            i += 2;
          } else if (c === 0x72 || c === 0x74) {
            i += 2;
          } else return INVALID;
          continue;
        }
        if (c < 0x20) return INVALID;
        if (c === 0x7f) {
          flags |= ESCAPE;
          i++;
          continue;
        }
        const length = utf8Length(b, i);
        if (length === 0) return INVALID;
        if (isUnsafeCodePoint(codePoint(b, i, length))) flags |= ESCAPE;
        i += length;
      }
      i++;
      if (expect === Expect.Key || expect === Expect.FirstKey) {
        // A `type` key of its own would make two: the line is written again with the stream's type alone.
        if (depth === 1 && (escaped || isTopKey(b, keyStart, i, resumeAt !== undefined))) flags |= RESHAPE;
        while (i < end && isSpace(b[i] as number)) {
          flags |= RESHAPE;
          i++;
        }
        if (b[i] !== 0x3a) return INVALID;
        i++;
        expect = Expect.Value;
        continue;
      }
      if (expect === Expect.After) return INVALID;
      expect = Expect.After;
      continue;
    }
    if (isSpace(c)) {
      flags |= RESHAPE;
      i++;
      continue;
    }
    if (expect === Expect.After) {
      const container = containers[depth];
      if (c === COMMA) {
        expect = container === OBJECT ? Expect.Key : Expect.Value;
        i++;
        continue;
      }
      if (c === (container === OBJECT ? 0x7d : 0x5d)) {
        i++;
        if (--depth === 0) break;
        continue;
      }
      return INVALID;
    }
    if ((expect === Expect.FirstKey && c === 0x7d) || (expect === Expect.FirstValue && c === 0x5d)) {
      i++;
      expect = Expect.After;
      if (--depth === 0) break;
      continue;
    }
    if (expect === Expect.Key || expect === Expect.FirstKey) return INVALID;
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return INVALID;
      containers[depth] = c === 0x7b ? OBJECT : ARRAY;
      expect = c === 0x7b ? Expect.FirstKey : Expect.FirstValue;
      i++;
      continue;
    }
    const next = scalarEnd(b, i);
    if (next === -1) return INVALID;
    i = next;
    expect = Expect.After;
  }
  if (depth !== 0) return INVALID;
  for (; i < end; i++) {
    if (!isSpace(b[i] as number)) return INVALID;
    flags |= RESHAPE;
  }
  return flags;
}

/**
 * A top-level key that makes the line be written again: `type` (the stream's type comes first, alone), and for a
 * recorded line also `offset` and `attempts`.
 */
function isTopKey(b: Buffer, start: number, end: number, recorded: boolean): boolean {
  const length = end - start;
  if (length === 6) return b.toString('latin1', start, end) === '"type"';
  if (!recorded || (length !== 8 && length !== 10)) return false;
  const key = b.toString('latin1', start, end);
  return key === '"offset"' || key === '"attempts"';
}

/** The end of the number or literal at `i`, or -1. */
function scalarEnd(b: Buffer, start: number): number {
  let i = start;
  let c = b[i] as number;
  if (c === 0x74) return b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65 ? i + 4 : -1;
  if (c === 0x66) {
    return b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65 ? i + 5 : -1;
  }
  if (c === 0x6e) return b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c ? i + 4 : -1;
  if (c === 0x2d) c = b[++i] as number;
  if (c === 0x30) c = b[++i] as number;
  else if (c >= 0x31 && c <= 0x39) {
    do c = b[++i] as number;
    while (isDigit(c));
  } else return -1;
  if (c === 0x2e) {
    c = b[++i] as number;
    if (!isDigit(c)) return -1;
    do c = b[++i] as number;
    while (isDigit(c));
  }
  if (c === 0x65 || c === 0x45) {
    c = b[++i] as number;
    if (c === 0x2b || c === 0x2d) c = b[++i] as number;
    if (!isDigit(c)) return -1;
    do c = b[++i] as number;
    while (isDigit(c));
  }
  return i;
}

const isContinuation = (c: number | undefined) => c !== undefined && (c & 0xc0) === 0x80;

/** The length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates), or 0. */
function utf8Length(b: Buffer, i: number): number {
  const c = b[i] as number;
  const c1 = b[i + 1];
  if (c >= 0xc2 && c <= 0xdf) return isContinuation(c1) ? 2 : 0;
  if (c1 === undefined) return 0;
  if (c >= 0xe0 && c <= 0xef) {
    const ok =
      (c === 0xe0 ? c1 >= 0xa0 && c1 <= 0xbf : c === 0xed ? c1 >= 0x80 && c1 <= 0x9f : isContinuation(c1)) &&
      isContinuation(b[i + 2]);
    return ok ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const ok =
      (c === 0xf0 ? c1 >= 0x90 && c1 <= 0xbf : c === 0xf4 ? c1 >= 0x80 && c1 <= 0x8f : isContinuation(c1)) &&
      isContinuation(b[i + 2]) &&
      isContinuation(b[i + 3]);
    return ok ? 4 : 0;
  }
  return 0;
}

function codePoint(b: Buffer, i: number, length: number): number {
  const c = b[i] as number;
  if (length === 2) return ((c & 0x1f) << 6) | ((b[i + 1] as number) & 0x3f);
  if (length === 3) return ((c & 0x0f) << 12) | (((b[i + 1] as number) & 0x3f) << 6) | ((b[i + 2] as number) & 0x3f);
  return (
    ((c & 0x07) << 18) |
    (((b[i + 1] as number) & 0x3f) << 12) |
    (((b[i + 2] as number) & 0x3f) << 6) |
    ((b[i + 3] as number) & 0x3f)
  );
}

/** `{"type":"user.created",` (or without the comma, before an empty object) as bytes, kept for short types. */
const prefixes = new Map<string, readonly [Buffer, Buffer]>();
let lastType = '';
let lastPair: readonly [Buffer, Buffer] | undefined;

function typePrefix(type: string, comma: boolean): Buffer {
  let pair = type === lastType ? lastPair : prefixes.get(type);
  if (pair === undefined) {
    const prefix = `{"type":${escapeJsonText(JSON.stringify(type))}`;
    pair = [Buffer.from(prefix), Buffer.from(`${prefix},`)];
    if (prefixes.size < 64 && type.length <= 64) prefixes.set(type, pair);
  }
  lastType = type;
  lastPair = pair;
  return pair[comma ? 1 : 0];
}

/** The slow way, for the few events that need it: parsed and written again (the data is known to be valid). */
function reshape(
  type: string,
  data: Buffer,
  parsed = JSON.parse(data.toString('utf8')) as Record<string, unknown>,
): Buffer {
  // Written key by key: an object would put integer-like keys before `type`.
  let text = `{"type":${JSON.stringify(type)}`;
  for (const [key, value] of Object.entries(parsed)) {
    if (key !== 'type') text += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return Buffer.from(`${escapeJsonText(text)}}\n`);
}
