// AssemblyScript, compiled to WebAssembly by scripts/build-wasm.js (not part of the TypeScript project).
//
// The event stream's fast path (src/api/sse-fast-path.ts): frames the plain messages of a run of received bytes,
// checks each one's data as event-payload.ts does, and writes the NDJSON line of every event that needs no change.
// Anything else it stops at and leaves to the TypeScript parser. The JavaScript side lays out the memory:
//   [input, then at least 16 bytes of slack][output][records]
// and calls `frame` with the three areas.

/** What `frame` stopped at, at `stoppedAt()`. */
const STOP_END: i32 = 0; // every byte was used
const STOP_INCOMPLETE: i32 = 1; // a message that has not ended yet
const STOP_UNUSUAL: i32 = 2; // a message this path does not take: the TypeScript parser takes it
const STOP_FULL: i32 = 3; // the record or output area is full: call again from there

/** Record: ten i32, see RECORD_* in sse-fast-path.ts. */
const RECORD_INTS: usize = 10;
const HAS_ID: i32 = 1;
const HAS_EVENT: i32 = 2;
const HAS_DATA: i32 = 4;
const WRITTEN: i32 = 8;

/** The data's verdict, as event-payload.ts: INVALID, or VALID with ESCAPE and RESHAPE as needed. */
const INVALID: i32 = 0;
const VALID: i32 = 1;
const ESCAPE: i32 = 2;
const RESHAPE: i32 = 4;

const MAX_DEPTH: i32 = 64;
const LF: u32 = 0x0a;
const CR: u32 = 0x0d;
const QUOTE: u32 = 0x22;
const BACKSLASH: u32 = 0x5c;
const COLON: u32 = 0x3a;
const SPACE: u32 = 0x20;

/** One bit per Basic Multilingual Plane code point a terminal could act on; filled from sanitize.ts. */
const UNSAFE_BMP: usize = memory.data(8192);
/** Pairs of [from, to] code points above the BMP, also from sanitize.ts. */
const MAX_ASTRAL: i32 = 16;
const ASTRAL: usize = memory.data(MAX_ASTRAL * 8);
let astralCount: i32 = 0;

const CONTAINERS: usize = memory.data(MAX_DEPTH + 2);

/** The event types seen so far (up to TYPE_SLOTS of up to TYPE_BYTES), so the caller decodes each once. */
const TYPE_SLOTS: i32 = 64;
const TYPE_BYTES: i32 = 64;
const TYPES: usize = memory.data(TYPE_SLOTS * TYPE_BYTES);
const TYPE_LENGTHS: usize = memory.data(TYPE_SLOTS * 4);
let typeCount: i32 = 0;
let lastType: i32 = 0;

let stopPosition: i32 = 0;
let stopWhy: i32 = STOP_END;
let outputEnd: i32 = 0;

export function unsafeBmp(): usize {
  return UNSAFE_BMP;
}

export function astralRanges(): usize {
  return ASTRAL;
}

export function setAstralCount(count: i32): void {
  astralCount = count < MAX_ASTRAL ? count : MAX_ASTRAL;
}

export function heapStart(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

export function typeBytes(index: i32): usize {
  return TYPES + <usize>(index * TYPE_BYTES);
}

export function typeLength(index: i32): i32 {
  return load<i32>(TYPE_LENGTHS + <usize>(index * 4));
}

export function stoppedAt(): i32 {
  return stopPosition;
}

export function stopReason(): i32 {
  return stopWhy;
}

export function outputLength(): i32 {
  return outputEnd;
}

function isSpace(c: u32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d;
}

function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}

function isContinuation(c: u32): bool {
  return (c & 0xc0) == 0x80;
}

function isUnsafe(cp: u32): bool {
  if (cp <= 0xffff) return ((<u32>load<u8>(UNSAFE_BMP + (cp >> 3)) >> (cp & 7)) & 1) != 0;
  for (let k = 0; k < astralCount; k++) {
    const at = ASTRAL + <usize>(k * 8);
    if (cp >= load<u32>(at) && cp <= load<u32>(at, 4)) return true;
  }
  return false;
}

/** The next LF at or after `from` before `end`; -1 when there is none, -2 when a CR comes first. */
function nextLineEnd(base: usize, from: usize, end: usize): i32 {
  let at = from;
  while (at < end) {
    const v = v128.load(base + at);
    const mask = i8x16.bitmask(v128.or(i8x16.eq(v, i8x16.splat(0x0a)), i8x16.eq(v, i8x16.splat(0x0d))));
    if (mask != 0) {
      const found = at + <usize>ctz(mask);
      if (found >= end) return -1;
      return load<u8>(base + found) == CR ? -2 : <i32>found;
    }
    at += 16;
  }
  return -1;
}

/** Whether bytes [at, at + name's length) are `name` followed by a colon. */
function fieldIs(base: usize, at: usize, lineEnd: usize, name: u64, length: usize): bool {
  if (at + length >= lineEnd) return false;
  for (let k: usize = 0; k < length; k++) {
    if (<u64>load<u8>(base + at + k) != ((name >> (k * 8)) & 0xff)) return false;
  }
  return <u32>load<u8>(base + at + length) == COLON;
}

/** The value of a field: after the colon and one optional space. */
function valueStart(base: usize, at: usize, lineEnd: usize): usize {
  let v = at + 1;
  if (v < lineEnd && <u32>load<u8>(base + v) == SPACE) v++;
  return v;
}

const EXPECT_VALUE: i32 = 0;
const EXPECT_AFTER: i32 = 1;
const EXPECT_FIRST_KEY: i32 = 2;
const EXPECT_KEY: i32 = 3;
const EXPECT_FIRST_VALUE: i32 = 4;

/**
 * The verdict on the JSON text [start, end): the same rules as `scan` in event-payload.ts. The byte at `end` is the
 * LF that ended the line, so a look-ahead past the end meets it and fails as it should.
 */
function scan(base: usize, start: usize, end: usize): i32 {
  let i = start;
  let flags = VALID;
  while (i < end && isSpace(load<u8>(base + i))) {
    flags |= RESHAPE;
    i++;
  }
  if (i >= end || <u32>load<u8>(base + i) != 0x7b) return INVALID;
  let depth = 0;
  let expect = EXPECT_VALUE;
  while (i < end) {
    let c = <u32>load<u8>(base + i);
    if (c == QUOTE) {
      const keyStart = i;
      let escaped = false;
      i++;
      while (true) {
        // Sixteen bytes a step up to the next byte that is not plain string content.
        while (true) {
          const v = v128.load(base + i);
          const stops = v128.or(
            v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))),
            v128.or(i8x16.lt_u(v, i8x16.splat(0x20)), i8x16.gt_u(v, i8x16.splat(0x7e))),
          );
          const mask = i8x16.bitmask(stops);
          if (mask != 0) {
            i += <usize>ctz(mask);
            break;
          }
          i += 16;
          if (i >= end) return INVALID;
        }
        if (i >= end) return INVALID;
        c = load<u8>(base + i);
        if (c == QUOTE) break;
        if (c == BACKSLASH) {
          escaped = true;
          c = load<u8>(base + i + 1);
          if (c == 0x75) {
            if (
              !(
                isHex(load<u8>(base + i + 2)) &&
                isHex(load<u8>(base + i + 3)) &&
                isHex(load<u8>(base + i + 4)) &&
                isHex(load<u8>(base + i + 5))
              )
            ) {
              return INVALID;
            }
            i += 6;
          } else if (
            c == QUOTE ||
            c == BACKSLASH ||
            c == 0x2f ||
            c == 0x62 ||
            c == 0x66 ||
            c == 0x6e ||
            c == 0x72 ||
            c == 0x74
          ) {
            i += 2;
          } else {
            return INVALID;
          }
          continue;
        }
        if (c < 0x20) return INVALID;
        if (c == 0x7f) {
          flags |= ESCAPE;
          i++;
          continue;
        }
        // UTF-8 (RFC 3629: no overlongs, no surrogates); a byte past `end` is the line's LF, never a continuation.
        const c1 = <u32>load<u8>(base + i + 1);
        let length: usize = 0;
        let cp: u32 = 0;
        if (c >= 0xc2 && c <= 0xdf) {
          if (isContinuation(c1)) {
            length = 2;
            cp = ((c & 0x1f) << 6) | (c1 & 0x3f);
          }
        } else if (c >= 0xe0 && c <= 0xef) {
          const c2 = <u32>load<u8>(base + i + 2);
          const second =
            c == 0xe0 ? c1 >= 0xa0 && c1 <= 0xbf : c == 0xed ? c1 >= 0x80 && c1 <= 0x9f : isContinuation(c1);
          if (second && isContinuation(c2)) {
            length = 3;
            cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
          }
        } else if (c >= 0xf0 && c <= 0xf4) {
          const c2 = <u32>load<u8>(base + i + 2);
          const c3 = <u32>load<u8>(base + i + 3);
          const second =
            c == 0xf0 ? c1 >= 0x90 && c1 <= 0xbf : c == 0xf4 ? c1 >= 0x80 && c1 <= 0x8f : isContinuation(c1);
          if (second && isContinuation(c2) && isContinuation(c3)) {
            length = 4;
            cp = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f);
          }
        }
        if (length == 0 || i + length > end) return INVALID;
        if (isUnsafe(cp)) flags |= ESCAPE;
        i += length;
      }
      i++;
      if (expect == EXPECT_KEY || expect == EXPECT_FIRST_KEY) {
        // A `type` key of its own would make two: the line is written again with the stream's type alone.
        if (depth == 1 && (escaped || (i - keyStart == 6 && load<u32>(base + keyStart + 1) == 0x65707974))) {
          flags |= RESHAPE;
        }
        while (i < end && isSpace(load<u8>(base + i))) {
          flags |= RESHAPE;
          i++;
        }
        if (i >= end || <u32>load<u8>(base + i) != COLON) return INVALID;
        i++;
        expect = EXPECT_VALUE;
        continue;
      }
      if (expect == EXPECT_AFTER) return INVALID;
      expect = EXPECT_AFTER;
      continue;
    }
    if (isSpace(c)) {
      flags |= RESHAPE;
      i++;
      continue;
    }
    if (expect == EXPECT_AFTER) {
      const container = <u32>load<u8>(CONTAINERS + <usize>depth);
      if (c == 0x2c) {
        expect = container == 1 ? EXPECT_KEY : EXPECT_VALUE;
        i++;
        continue;
      }
      if (c == (container == 1 ? 0x7d : 0x5d)) {
        i++;
        if (--depth == 0) break;
        continue;
      }
      return INVALID;
    }
    if ((expect == EXPECT_FIRST_KEY && c == 0x7d) || (expect == EXPECT_FIRST_VALUE && c == 0x5d)) {
      i++;
      expect = EXPECT_AFTER;
      if (--depth == 0) break;
      continue;
    }
    if (expect == EXPECT_KEY || expect == EXPECT_FIRST_KEY) return INVALID;
    if (c == 0x7b || c == 0x5b) {
      if (++depth > MAX_DEPTH) return INVALID;
      store<u8>(CONTAINERS + <usize>depth, c == 0x7b ? 1 : 2);
      expect = c == 0x7b ? EXPECT_FIRST_KEY : EXPECT_FIRST_VALUE;
      i++;
      continue;
    }
    i = scalarEnd(base, i);
    if (i == 0 || i > end) return INVALID;
    expect = EXPECT_AFTER;
  }
  if (depth != 0) return INVALID;
  for (; i < end; i++) {
    if (!isSpace(load<u8>(base + i))) return INVALID;
    flags |= RESHAPE;
  }
  return flags;
}

/** The end of the number or literal at `start`, or 0 (a scalar never starts at 0: the data starts with `{`). */
function scalarEnd(base: usize, start: usize): usize {
  let i = start;
  let c = <u32>load<u8>(base + i);
  if (c == 0x74) {
    return load<u8>(base + i + 1) == 0x72 && load<u8>(base + i + 2) == 0x75 && load<u8>(base + i + 3) == 0x65
      ? i + 4
      : 0;
  }
  if (c == 0x66) {
    const ok =
      load<u8>(base + i + 1) == 0x61 &&
      load<u8>(base + i + 2) == 0x6c &&
      load<u8>(base + i + 3) == 0x73 &&
      load<u8>(base + i + 4) == 0x65;
    return ok ? i + 5 : 0;
  }
  if (c == 0x6e) {
    return load<u8>(base + i + 1) == 0x75 && load<u8>(base + i + 2) == 0x6c && load<u8>(base + i + 3) == 0x6c
      ? i + 4
      : 0;
  }
  if (c == 0x2d) c = load<u8>(base + ++i);
  if (c == 0x30) c = load<u8>(base + ++i);
  else if (c >= 0x31 && c <= 0x39) {
    do c = load<u8>(base + ++i);
    while (isDigit(c));
  } else return 0;
  if (c == 0x2e) {
    c = load<u8>(base + ++i);
    if (!isDigit(c)) return 0;
    do c = load<u8>(base + ++i);
    while (isDigit(c));
  }
  if (c == 0x65 || c == 0x45) {
    c = load<u8>(base + ++i);
    if (c == 0x2b || c == 0x2d) c = load<u8>(base + ++i);
    if (!isDigit(c)) return 0;
    do c = load<u8>(base + ++i);
    while (isDigit(c));
  }
  return i;
}

/** An event type written as it is inside a JSON string and on a terminal: printable ASCII but `"` and `\`. */
function isPlainType(base: usize, start: usize, end: usize): bool {
  if (end == start || end - start > <usize>TYPE_BYTES) return false;
  for (let k = start; k < end; k++) {
    const c = <u32>load<u8>(base + k);
    if (c < 0x21 || c > 0x7e || c == QUOTE || c == BACKSLASH) return false;
  }
  return true;
}

function sameBytes(a: usize, b: usize, length: usize): bool {
  for (let k: usize = 0; k < length; k++) if (load<u8>(a + k) != load<u8>(b + k)) return false;
  return true;
}

/** The slot of a plain type, added when new; -1 when the table is full. */
function typeSlot(base: usize, start: usize, end: usize): i32 {
  const length = <i32>(end - start);
  if (lastType < typeCount && typeLength(lastType) == length && sameBytes(typeBytes(lastType), base + start, length)) {
    return lastType;
  }
  for (let k = 0; k < typeCount; k++) {
    if (typeLength(k) == length && sameBytes(typeBytes(k), base + start, length)) {
      lastType = k;
      return k;
    }
  }
  if (typeCount == TYPE_SLOTS) return -1;
  memory.copy(typeBytes(typeCount), base + start, length);
  store<i32>(TYPE_LENGTHS + <usize>(typeCount * 4), length);
  lastType = typeCount;
  return typeCount++;
}

function stop(at: usize, why: i32): void {
  stopPosition = <i32>at;
  stopWhy = why;
}

/**
 * Frames the messages of `input[0, length)` until one this path does not take. A message it takes has lines ending
 * in LF (no CR anywhere), at most one each of `id:`, `event:` and `data:` (a space after the colon or not), and
 * comment lines. A message with data gets its verdict, and its NDJSON line in `output` when the data needs no change
 * and its type is plain. Returns the number of records written; `stoppedAt()` and `stopReason()` say where and why.
 */
export function frame(
  input: usize,
  length: i32,
  output: usize,
  outputCapacity: i32,
  records: usize,
  maxRecords: i32,
): i32 {
  const end = <usize>length;
  let at: usize = 0;
  let out: usize = 0;
  let count = 0;
  outputEnd = 0;
  while (true) {
    const start = at;
    if (at >= end) {
      stop(at, STOP_END);
      break;
    }
    if (count == maxRecords) {
      stop(at, STOP_FULL);
      break;
    }
    let flags = 0;
    let idStart: usize = 0;
    let idEnd: usize = 0;
    let typeStart: usize = 0;
    let typeEnd: usize = 0;
    let dataStart: usize = 0;
    let dataEnd: usize = 0;
    let why = -1;
    while (true) {
      const lineEnd = nextLineEnd(input, at, end);
      if (lineEnd == -1) {
        why = STOP_INCOMPLETE;
        break;
      }
      if (lineEnd == -2) {
        why = STOP_UNUSUAL;
        break;
      }
      const lf = <usize>lineEnd;
      if (lf == at) {
        at = lf + 1;
        break;
      }
      const first = <u32>load<u8>(input + at);
      if (first == COLON) {
        at = lf + 1;
        continue;
      }
      // "data", "event" and "id" as little-endian bytes.
      if (fieldIs(input, at, lf, 0x61746164, 4)) {
        if (flags & HAS_DATA) {
          why = STOP_UNUSUAL;
          break;
        }
        flags |= HAS_DATA;
        dataStart = valueStart(input, at + 4, lf);
        dataEnd = lf;
      } else if (fieldIs(input, at, lf, 0x746e657665, 5)) {
        if (flags & HAS_EVENT) {
          why = STOP_UNUSUAL;
          break;
        }
        flags |= HAS_EVENT;
        typeStart = valueStart(input, at + 5, lf);
        typeEnd = lf;
      } else if (fieldIs(input, at, lf, 0x6469, 2)) {
        if (flags & HAS_ID) {
          why = STOP_UNUSUAL;
          break;
        }
        flags |= HAS_ID;
        idStart = valueStart(input, at + 2, lf);
        idEnd = lf;
      } else {
        why = STOP_UNUSUAL;
        break;
      }
      at = lf + 1;
    }
    if (why >= 0) {
      stop(start, why);
      break;
    }
    // A message with neither data nor an id carries nothing (sse-parser.ts drops it too).
    if ((flags & (HAS_DATA | HAS_ID)) == 0) continue;
    let verdict = 0;
    let slot = -1;
    let outStart: usize = 0;
    if (flags & HAS_DATA) {
      verdict = scan(input, dataStart, dataEnd);
      if (flags & HAS_EVENT && isPlainType(input, typeStart, typeEnd)) slot = typeSlot(input, typeStart, typeEnd);
      if (verdict == VALID && slot >= 0) {
        // {"type":"<type>", then the data after its `{` (no comma before an empty object), then a line break.
        const typeLength = typeEnd - typeStart;
        const dataLength = dataEnd - dataStart;
        const need = <usize>11 + typeLength + dataLength;
        if (out + need > <usize>outputCapacity) {
          stop(start, STOP_FULL);
          break;
        }
        outStart = out;
        store<u64>(output + out, 0x3a2265707974227b); // {"type":
        store<u8>(output + out + 8, <u8>QUOTE);
        out += 9;
        memory.copy(output + out, input + typeStart, typeLength);
        out += typeLength;
        store<u8>(output + out, <u8>QUOTE);
        out++;
        if (dataLength > 2) {
          store<u8>(output + out, 0x2c);
          out++;
        }
        memory.copy(output + out, input + dataStart + 1, dataLength - 1);
        out += dataLength - 1;
        store<u8>(output + out, <u8>LF);
        out++;
        flags |= WRITTEN;
      }
    }
    const record = records + <usize>count * RECORD_INTS * 4;
    store<i32>(record, flags | (verdict << 8));
    store<i32>(record, <i32>idStart, 4);
    store<i32>(record, <i32>idEnd, 8);
    store<i32>(record, slot, 12);
    store<i32>(record, <i32>typeStart, 16);
    store<i32>(record, <i32>typeEnd, 20);
    store<i32>(record, <i32>dataStart, 24);
    store<i32>(record, <i32>dataEnd, 28);
    store<i32>(record, <i32>outStart, 32);
    store<i32>(record, <i32>out, 36);
    count++;
  }
  outputEnd = <i32>out;
  return count;
}
