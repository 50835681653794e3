import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { eventLine } from '../../../src/events/stream/event-payload.js';
import { createSseFramer, REUSED_AFTER } from '../../../src/events/stream/sse-fast-path.js';
import { SSE_MAX_LINE_BYTES, type SseMessage, SseParser } from '../../../src/events/stream/sse-parser.js';
import { UNSAFE_RANGES } from '../../../src/text/sanitize.js';

/**
 * The property test of the event stream's fast path (issue 27): seeded random streams, cut at random chunk and run
 * boundaries, go through the fast path (sse-fast-path.ts and wasm/sse-frame.ts) and through the parser
 * (sse-parser.ts + event-payload.ts); every message, `retry:` and error must be the same, in the same order.
 *
 * Every run checks FIXED_CASES cases under FIXED_SEED, and FRESH_CASES under a seed of its own, named in the test's
 * title. A failure names its seed and case, shows the smallest stream that still fails, and how to run it again:
 *   SVCADM_PROPERTY_SEED=<seed> [SVCADM_PROPERTY_CASE=<case>] [SVCADM_PROPERTY_CASES=<count>] npx vitest run <this file>
 */
const FIXED_SEED = 0x2711_2025;
const FIXED_CASES = 2500;
const FRESH_CASES = 500;
const THIS_FILE = 'test/events/stream/sse-fast-path.property.test.ts';

// ---------------------------------------------------------------------------------------------------------------
// Seeded randomness.

/** mulberry32: a small 32-bit generator, good enough to pick test cases, and the same on every machine. */
class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  /** An integer in [1, high], small ones as likely as large ones by order of magnitude. */
  size(high: number): number {
    return Math.max(1, Math.min(high, Math.floor(Math.exp(this.next() * Math.log(high + 1)))));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** The seed of case `index` under `seed` (murmur3's finaliser): any case can be run alone. */
function caseSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Random streams, built as byte strings (one character per byte, as latin1 reads them): cheap to join.

/** Text as its UTF-8 bytes. */
const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const raw = (...codes: number[]) => String.fromCharCode(...codes);

const BOM = raw(0xef, 0xbb, 0xbf);

/** Well-formed UTF-8 at the edges of what the checks look at, and what is not UTF-8 at all. */
const GOOD_UTF8 = [
  [0xc2, 0x80],
  [0xdf, 0xbf],
  [0xe0, 0xa0, 0x80],
  [0xed, 0x9f, 0xbf],
  [0xee, 0x80, 0x80],
  [0xef, 0xbf, 0xbd],
  [0xef, 0xbf, 0xbf],
  [0xf0, 0x90, 0x80, 0x80],
  [0xf4, 0x8f, 0xbf, 0xbf],
].map((codes) => raw(...codes));
const BAD_UTF8 = [
  [0x80],
  [0xbf],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xc2],
  [0xc2, 0x41],
  [0xe0, 0x80, 0xaf],
  [0xe0, 0xa0],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xef, 0xbf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf0, 0x90, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
].map((codes) => raw(...codes));

/** Code points on both sides of each edge of sanitize.ts's table: the fast path must escape exactly those inside. */
const EDGE_CHARACTERS = [
  ...new Set(
    UNSAFE_RANGES.flatMap(([from, to]) => [from - 1, from, to, to + 1]).filter(
      (cp) => cp >= 0x20 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff),
    ),
  ),
].map((cp) => utf8(String.fromCodePoint(cp)));
const PLAIN_TEXT = [
  'a',
  'user',
  'Zoë',
  '漢字',
  '🙂',
  ' ',
  'x'.repeat(15),
  'y'.repeat(17),
  '0123456789abcdef',
  '~',
  "'",
].map(utf8);
const ESCAPES = [
  '\\"',
  '\\\\',
  '\\/',
  '\\b',
  '\\f',
  '\\n',
  '\\r',
  '\\t',
  '\\u0000',
  '\\u001b',
  '\\u00E9',
  '\\ud83d\\ude42',
];
const BAD_ESCAPES = ['\\x', '\\u12', '\\u12g4', '\\', '\\U0041', "\\'"];

interface Style {
  /** How the lines end. */
  eol: 'lf' | 'crlf' | 'cr' | 'mixed';
  /** How often a message is unusual: a field or a form the fast path leaves to the parser. */
  odd: number;
  /** How often data is not a plain, valid event. */
  bad: number;
  types: readonly string[];
}

function eol(r: Random, style: Style): string {
  if (style.eol === 'lf') return '\n';
  if (style.eol === 'crlf') return '\r\n';
  if (style.eol === 'cr') return '\r';
  return r.pick(['\n', '\n', '\n', '\n', '\r\n', '\r']);
}

/** White space between JSON tokens, now and then (the parser writes such data again; the fast path leaves it). */
function ws(r: Random, style: Style): string {
  return style.bad > 0 && r.chance(style.bad * 0.05) ? r.pick([' ', '\t', '  ', '\r', '\n', ' \t ']) : '';
}

function jsonString(r: Random, style: Style): string {
  let s = '"';
  for (let n = r.int(0, 6); n > 0; n--) {
    const roll = r.next();
    if (roll < 0.45) s += r.pick(PLAIN_TEXT);
    else if (roll < 0.6) s += r.pick(ESCAPES);
    else if (roll < 0.78) s += r.pick(EDGE_CHARACTERS);
    else if (roll < 0.86) s += r.pick(GOOD_UTF8);
    else if (roll < 0.9) s += '\x7f';
    else if (r.chance(style.bad)) {
      const kind = r.int(0, 2);
      s += kind === 0 ? r.pick(BAD_UTF8) : kind === 1 ? r.pick(BAD_ESCAPES) : raw(r.int(0, 0x1f));
    } else s += 'z';
  }
  return `${s}"`;
}

const NUMBERS = ['0', '-0', '1', '-1', '42', '-1.5e3', '12.25', '1E+2', '1e-7', '0.5', '123456789012345678901234'];
const KEYS = ['user_id', 'name', 'offset', 'n', 'list', 'ok', 'no', 'é', '', 'typ', 'types', 'x'.repeat(20)].map(
  (key) => `"${utf8(key)}"`,
);

function jsonValue(r: Random, style: Style, depth: number): string {
  const roll = r.next();
  if (depth > 3 || roll < 0.5) {
    const kind = r.int(0, 3);
    if (kind === 0) return jsonString(r, style);
    if (kind === 1) return r.pick(NUMBERS);
    return r.pick(['true', 'false', 'null']);
  }
  if (roll >= 0.75) return jsonObject(r, style, depth + 1);
  let s = `[${ws(r, style)}`;
  for (let n = r.int(0, 3); n > 0; n--) {
    s += jsonValue(r, style, depth + 1);
    if (n > 1) s += `${ws(r, style)},${ws(r, style)}`;
  }
  return `${s}${ws(r, style)}]`;
}

function jsonKey(r: Random, style: Style): string {
  const roll = r.next();
  // A `type` of its own, plain or escaped, makes the parser write the line again.
  if (roll < 0.04 * (1 + style.bad)) return r.pick(['"type"', '"t\\u0079pe"', '"\\u0074ype"', '"Type"']);
  if (roll < 0.8) return r.pick(KEYS);
  return jsonString(r, style);
}

function jsonObject(r: Random, style: Style, depth: number): string {
  let s = `{${ws(r, style)}`;
  for (let n = r.int(0, depth === 0 ? 5 : 3); n > 0; n--) {
    s += `${jsonKey(r, style)}${ws(r, style)}:${ws(r, style)}${jsonValue(r, style, depth)}`;
    if (n > 1) s += `${ws(r, style)},${ws(r, style)}`;
  }
  return `${s}${ws(r, style)}}`;
}

/** Bytes a near miss puts in: JSON's own, and what breaks UTF-8 or a terminal. */
const NEAR_MISS_BYTES = '{}[],:"\\ \t0123456789eE.-+truefalsnl/u';
const NEAR_MISS_RAW = raw(0x00, 0x1b, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff);

/** A valid object broken in one or two places: cut short, a byte more, a byte less, a byte changed, a part twice. */
function nearMiss(r: Random, json: string): string {
  let s = json;
  for (let n = r.int(1, 2); n > 0; n--) {
    const at = r.int(0, s.length);
    const pool = r.chance(0.8) ? NEAR_MISS_BYTES : NEAR_MISS_RAW;
    const byte = pool[r.int(0, pool.length - 1)]!;
    const kind = r.int(0, 4);
    if (kind === 0) s = s.slice(0, at);
    else if (kind === 1) s = s.slice(0, at) + byte + s.slice(at);
    else if (kind === 2) s = s.slice(0, at) + s.slice(at + 1);
    else if (kind === 3 && at < s.length) s = s.slice(0, at) + byte + s.slice(at + 1);
    else s = s.slice(0, at) + s.slice(r.int(0, at), at) + s.slice(at);
  }
  return s;
}

/** An object valid but for one string: bytes that are not UTF-8, a bad escape or a control, at any alignment. */
function oneBadByte(r: Random, style: Style): string {
  const kind = r.int(0, 2);
  const bad = kind === 0 ? r.pick(BAD_UTF8) : kind === 1 ? r.pick(BAD_ESCAPES) : raw(r.int(0, 0x1f));
  const rest = jsonObject(r, style, 0);
  return `{"s":"${'a'.repeat(r.int(0, 40))}${bad}${r.chance(0.5) ? r.pick(PLAIN_TEXT) : ''}"${rest.length > 2 ? `,${rest.slice(1)}` : '}'}`;
}

const WRONG_SHAPES = [
  '[]',
  '["array"]',
  '"text"',
  '12',
  'null',
  'true',
  'not json',
  '',
  ' ',
  '{',
  '}',
  '{"a":1}{"b":2}',
];

function payload(r: Random, style: Style, type: string): string {
  if (type === 'error' && r.chance(0.7)) {
    return `{"error":{"code":"${r.pick(['timeout', 'unknown', 'cursor_expired'])}","message":"slow"}}`;
  }
  if (type === 'offset-only' && r.chance(0.7)) return `{"offset":"o${r.int(0, 999)}"}`;
  const roll = r.next();
  if (roll >= style.bad) return jsonObject(r, style, 0);
  if (roll < style.bad * 0.3) return nearMiss(r, jsonObject(r, style, 0));
  if (roll < style.bad * 0.6) return oneBadByte(r, style);
  if (roll < style.bad * 0.85) return r.pick(WRONG_SHAPES);
  // Nested as deep as event-payload.ts takes (64 levels with the object), and one more.
  const n = r.int(62, 64);
  return `{"deep":${'['.repeat(n)}${']'.repeat(n)}}`;
}

/** Types the fast path does not write itself, or that mean something to `events tail`. */
const ODD_TYPES = [
  'error',
  'offset-only',
  'message',
  '',
  utf8('usér.créé'),
  'quote"type',
  'back\\slash',
  'with space',
  ' lead',
  'tab\there',
  utf8('\u202etype'),
  'x'.repeat(64),
  'y'.repeat(65),
  '{}',
  raw(0x75, 0xff, 0x2e),
];

function eventType(r: Random, style: Style): string {
  return r.chance(style.odd) ? r.pick(ODD_TYPES) : r.pick(style.types);
}

const ODD_IDS = ['', ' two spaces', 'with\x00nul', utf8('é'), 'id:colon', raw(0x69, 0xc0, 0x64), 'x'.repeat(300)];

function idValue(r: Random, style: Style): string {
  return r.chance(style.odd) ? r.pick(ODD_IDS) : `e${r.int(0, 99999)}`;
}

/** Field names to one side of data, event, id and retry, and forms of a field the fast path leaves to the parser. */
const ODD_LINES = [
  'bogus: field',
  'Data: {}',
  'dat: {}',
  'datas: {}',
  'datax:{}',
  ' data: {}',
  'data : {}',
  'data:  {"two":"spaces"}',
  'eventx: y',
  'ids: 1',
  'x',
  'data',
  'event',
  'id',
  'retry',
  'retry: 2000',
  'retry:500',
  'retry: 0',
  'retry: soon',
  'retry: 12345678901234567',
  'retry:',
  'retry: 1e3',
  'abcdefgh: far colon',
  `${BOM}data: {}`,
];

function field(r: Random, name: string, value: string): string {
  return `${name}${r.chance(0.8) ? ': ' : ':'}${value}`;
}

/** One message: its lines, in the usual order or not, and the blank line that ends it (or not, at the end). */
function message(r: Random, style: Style, finished: boolean): string {
  const lines: string[] = [];
  const type = eventType(r, style);
  if (r.chance(0.85)) lines.push(field(r, 'id', idValue(r, style)));
  if (r.chance(0.85)) lines.push(field(r, 'event', type));
  const data = payload(r, style, type);
  const dataRoll = r.next();
  if (dataRoll < 0.04) {
    // No data: an id alone moves the cursor.
  } else if (dataRoll < 0.04 + style.odd * 0.5 && data.length > 1) {
    // Data on several lines: the parser joins them with LF.
    let from = 0;
    for (let n = r.int(1, 3); n > 0 && from < data.length; n--) {
      const to = r.int(from, data.length);
      lines.push(field(r, 'data', data.slice(from, to)));
      from = to;
    }
    lines.push(field(r, 'data', data.slice(from)));
  } else lines.push(field(r, 'data', data));
  if (r.chance(style.odd)) {
    const kind = r.int(0, 4);
    let extra: string;
    if (kind <= 1) extra = r.pick(ODD_LINES);
    else if (kind === 2) extra = field(r, 'id', idValue(r, style));
    else if (kind === 3) extra = field(r, 'event', eventType(r, style));
    else extra = field(r, 'data', payload(r, style, 'other'));
    lines.splice(r.int(0, lines.length), 0, extra);
  }
  if (r.chance(0.1)) lines.splice(r.int(0, lines.length), 0, `:${r.pick(['', ' heartbeat', 'comment: x', ':'])}`);
  if (r.chance(style.odd * 0.3)) lines.reverse();
  let s = '';
  for (const line of lines) s += line + eol(r, style);
  return finished ? s + eol(r, style) : s;
}

interface Case {
  bytes: Buffer;
  /** Chunk boundaries, strictly ascending; `run`: the chunk after it starts a run. */
  cuts: Array<{ at: number; run: boolean }>;
  reuseLines: boolean;
  /** The framer is fed views of memory written over once the next run is fed (`chunksReused`, as `events tail`). */
  chunksReused: boolean;
  /** `stop()` says so once this many messages have been handed over. */
  stopAfter: number | undefined;
  /** Why a case is large, if it is. */
  size: 'small' | 'many' | 'long message' | 'long run' | 'over the line bound';
}

function generate(r: Random): Case {
  const style: Style = {
    eol: r.chance(0.7) ? 'lf' : r.pick(['crlf', 'cr', 'mixed', 'mixed']),
    odd: r.pick([0, 0.02, 0.1, 0.3, 0.8]),
    bad: r.pick([0, 0.05, 0.2, 0.6]),
    types: r.chance(0.05)
      ? Array.from({ length: 100 }, (_, k) => `type.${k}`) // more than the 64 the module remembers
      : ['user.created', 'user.updated', 'user.deleted', 'connection.updated'],
  };
  const parts: string[] = [];
  if (r.chance(0.25)) parts.push(BOM);
  if (r.chance(0.5)) parts.push(`:connected${eol(r, style)}${eol(r, style)}`);
  let size: Case['size'] = 'small';
  const roll = r.next();
  let count = r.size(40);
  if (roll < 0.01) {
    // More messages than the records a frame call writes (MAX_RECORDS), mostly plain ones.
    size = 'many';
    count = r.int(1030, 1100);
  }
  for (let k = 0; k < count; k++) {
    if (r.chance(0.03)) parts.push(eol(r, style)); // a blank line more
    if (r.chance(0.03)) parts.push(`:${eol(r, style)}${eol(r, style)}`); // a message of comments alone
    if (size === 'many' && r.chance(0.9)) parts.push(`id: m${k}\nevent: user.created\ndata: {"k":${k}}\n\n`);
    else parts.push(message(r, style, true));
  }
  if (roll >= 0.01 && roll < 0.03) {
    // A message longer than the fast path holds unfinished (FAST_MESSAGE_MAX_BYTES), then more.
    size = 'long message';
    parts.splice(r.int(0, parts.length), 0, `id: big\ndata: {"big":"${'x'.repeat(r.int(60_000, 70_000))}"}\n\n`);
  } else if (roll >= 0.03 && roll < 0.04) {
    // More than a frame call's input and output areas (about 400 KB) in one run.
    size = 'long run';
    const line = `event: user.created\ndata: {"pad":"${'p'.repeat(r.int(2000, 4000))}"}\n\n`;
    for (let n = r.int(120, 200); n > 0; n--) parts.splice(r.int(0, parts.length), 0, line);
  } else if (roll >= 0.04 && roll < 0.042) {
    size = 'over the line bound';
    parts.splice(r.int(0, parts.length), 0, `id: huge\ndata: "${'h'.repeat(SSE_MAX_LINE_BYTES)}"\n\n`);
  }
  if (r.chance(0.3)) parts.push(message(r, style, false)); // the stream ends in the middle of a message
  const all = Buffer.from(parts.join(''), 'latin1');
  let cuts = cutsOf(r, all);
  // Half the large cases in one run, for the module's areas to fill (STOP_FULL, and the excess to the parser).
  if ((size === 'many' || size === 'long run') && r.chance(0.5)) cuts = cuts.map(({ at }) => ({ at, run: false }));
  return { bytes: all, cuts, reuseLines: r.chance(0.7), chunksReused: r.chance(0.5), stopAfter: undefined, size };
}
/** Where to cut: nowhere, every byte, random sizes, or at line ends and inside the byte order mark. */
function cutsOf(r: Random, all: Buffer): Case['cuts'] {
  const at: number[] = [];
  const roll = r.next();
  if (roll < 0.1) {
    // One chunk.
  } else if (roll < 0.2 && all.length <= 4096) {
    for (let k = 1; k < all.length; k++) at.push(k);
  } else if (roll < 0.75) {
    // At most about 4,000 chunks: a stream of megabytes is cut in larger pieces.
    const least = Math.ceil(all.length / 4000);
    const most = Math.max(least, 2 ** r.int(0, 17));
    for (let k = least + r.size(most) - 1; k < all.length; k += least + r.size(most) - 1) at.push(k);
  } else {
    const ends: number[] = [];
    for (const byte of [0x0a, 0x0d]) {
      for (let k = all.indexOf(byte); k !== -1 && ends.length < 5000; k = all.indexOf(byte, k + 1)) {
        ends.push(r.chance(0.5) ? k : k + 1);
      }
    }
    for (let n = r.size(200); n > 0 && ends.length > 0; n--) at.push(r.pick(ends));
    if (r.chance(0.5)) at.push(r.int(1, 2));
    for (let n = r.size(20); n > 0; n--) at.push(r.int(1, Math.max(1, all.length - 1)));
  }
  // Empty chunks too: a cut made twice, or at either end (a Node stream never hands one over; a parser fed one must
  // read nothing into it, a CR before it included).
  if (r.chance(0.2)) {
    const twice = at.length > 0 ? at : [0, all.length];
    for (let n = r.size(20); n > 0; n--) at.push(r.pick(twice));
  }
  const sorted = at.filter((k) => k >= 0 && k <= all.length).sort((a, b) => a - b);
  const perRun = r.pick([1, 1, 2, 8, 64, Number.POSITIVE_INFINITY]);
  return sorted.map((k, n) => ({ at: k, run: perRun === 1 || (n + 1) % perRun === 0 || r.chance(0.05) }));
}

// ---------------------------------------------------------------------------------------------------------------
// Running a case both ways.

/** What a consumer sees of a message; data and line as latin1, which keeps every byte. */
interface Seen {
  id: string | undefined;
  event: string;
  hasData: boolean;
  data: string;
  line: string | undefined;
}
type Entry = ['message', Seen] | ['retry', number] | ['error', string];

/** `eventLine` of the messages of the case at hand, by type and data: the four ways see the same ones. */
const lines = new Map<string, string | undefined>();

function seen(m: SseMessage): Seen {
  const data = m.data.toString('latin1');
  let line: string | undefined;
  if (m.line) line = Buffer.concat(m.line).toString('latin1');
  else if (m.hasData) {
    const key = `${m.event}\0${data}`;
    if (lines.has(key)) line = lines.get(key);
    else {
      const pieces = eventLine(m.event, m.data);
      line = pieces && Buffer.concat(pieces).toString('latin1');
      lines.set(key, line);
    }
  }
  return { id: m.id, event: m.event, hasData: m.hasData, data, line };
}

function chunksOf(c: Case): Buffer[][] {
  const runs: Buffer[][] = [[]];
  let from = 0;
  for (const { at, run } of c.cuts) {
    runs.at(-1)!.push(c.bytes.subarray(from, at));
    if (run) runs.push([]);
    from = at;
  }
  runs.at(-1)!.push(c.bytes.subarray(from));
  return runs;
}

/** The reference: the parser over the chunks, in order. */
function byParser(chunks: readonly Buffer[]): Entry[] {
  const log: Entry[] = [];
  const parser = new SseParser({
    message: (m) => log.push(['message', seen(m)]),
    retry: (ms) => log.push(['retry', ms]),
  });
  try {
    for (const chunk of chunks) parser.feed(chunk);
  } catch (err) {
    log.push(['error', (err as Error).message]);
  }
  return log;
}

/** What `stop()` lets through: everything up to the message that makes it say so. */
function upTo(log: readonly Entry[], messages: number | undefined): Entry[] {
  if (messages === undefined) return [...log];
  let seenMessages = 0;
  const at = log.findIndex((e) => e[0] === 'message' && ++seenMessages === messages);
  return at === -1 ? [...log] : log.slice(0, at + 1);
}

interface FramerOutcome {
  log: Entry[];
  /** Messages whose line the fast path wrote. */
  fast: number;
  /** Lines changed while they should still be as they were written (REUSED_AFTER), or for good (the parser's). */
  overwritten: string[];
}

/** What chunk-runs.ts writes over the area of a run once the next run is asked for (`reuseMemory`). */
const OVERWRITTEN_BYTE = 0xff;

/** A framer over the runs, as `events tail` drives it: no more runs once `stop()` says so. */
function byFramer(create: typeof createSseFramer, c: Case, runs: readonly (readonly Buffer[])[]): FramerOutcome {
  const log: Entry[] = [];
  let messages = 0;
  let fast = 0;
  const overwritten: string[] = [];
  /** The lines of the runs fed lately, with what they said when handed over. */
  const kept: Array<Array<[readonly Buffer[], string]>> = [];
  let current: Array<[readonly Buffer[], string]> = [];
  /** With chunksReused, the lines `events tail` makes of the parser's messages (eventLine over their data). */
  const parserLines: Array<[readonly Buffer[], string]> = [];
  const framer = create(
    {
      message: (m) => {
        messages++;
        if (m.line) {
          fast++;
          current.push([m.line, Buffer.concat(m.line).toString('latin1')]);
        } else if (c.chunksReused && m.hasData) {
          const pieces = eventLine(m.event, m.data);
          if (pieces) parserLines.push([pieces, Buffer.concat(pieces).toString('latin1')]);
        }
        log.push(['message', seen(m)]);
      },
      retry: (ms) => log.push(['retry', ms]),
    },
    () => c.stopAfter !== undefined && messages >= c.stopAfter,
    { reuseLines: c.reuseLines, chunksReused: c.chunksReused },
  );
  const check = (where: string, lines: ReadonlyArray<[readonly Buffer[], string]>) => {
    for (const [line, was] of lines) {
      const now = Buffer.concat(line).toString('latin1');
      if (now !== was) overwritten.push(`${where}: ${JSON.stringify(was)} became ${JSON.stringify(now)}`);
    }
  };
  try {
    for (const run of runs) {
      const fed = c.chunksReused ? run.map((chunk) => Buffer.from(chunk)) : run;
      framer.feed(fed);
      if (c.chunksReused) for (const chunk of fed) chunk.fill(OVERWRITTEN_BYTE);
      kept.push(current);
      current = [];
      // With reuseLines, a run's lines stay as written while the next REUSED_AFTER - 1 runs are fed.
      if (c.reuseLines) {
        for (let k = Math.max(0, kept.length - REUSED_AFTER); k < kept.length; k++) check(`run ${k}`, kept[k]!);
      }
      if (c.stopAfter !== undefined && messages >= c.stopAfter) break;
    }
  } catch (err) {
    log.push(['error', (err as Error).message]);
  }
  // Without, they stay as written for good.
  if (!c.reuseLines) for (const [k, lines] of kept.entries()) check(`run ${k}`, lines);
  check("a parser's message", parserLines);
  return { log, fast, overwritten };
}

interface Failure {
  what: string;
  expected: unknown;
  actual: unknown;
}

/** The same framer module, loaded again where there is no WebAssembly (`node --jitless`): the parser takes all. */
async function framerWithoutWasm(): Promise<typeof createSseFramer> {
  vi.resetModules();
  vi.stubGlobal('WebAssembly', undefined);
  try {
    return (await import('../../../src/events/stream/sse-fast-path.js')).createSseFramer;
  } finally {
    vi.unstubAllGlobals();
    vi.resetModules();
  }
}

interface Counts {
  cases: number;
  messages: number;
  /** Messages whose line the fast path wrote. */
  fast: number;
  /** Cases where the fast path wrote some lines and left others to the parser. */
  mixed: number;
  stopped: number;
  errors: number;
  bomSplit: number;
}

/** A byte order mark cut in two (counted: the cases must reach it). */
function splitsBom(c: Case): boolean {
  return c.bytes.toString('latin1', 0, 3) === BOM && c.cuts.some(({ at }) => at > 0 && at < 3);
}

function runCase(c: Case, withoutWasm: typeof createSseFramer, counts?: Counts): Failure | undefined {
  lines.clear();
  const runs = chunksOf(c);
  const chunks = runs.flat();
  const reference = byParser(chunks);
  // The parser reads the same messages wherever the stream is cut.
  const whole = byParser([c.bytes]);
  if (!isDeepStrictEqual(reference, whole)) {
    return {
      what: 'the parser over the chunks, against the parser over the stream in one piece',
      expected: whole,
      actual: reference,
    };
  }
  const expected = upTo(reference, c.stopAfter);
  const fast = byFramer(createSseFramer, c, runs);
  if (!isDeepStrictEqual(fast.log, expected)) {
    return { what: 'the fast path, against the parser over the same chunks', expected, actual: fast.log };
  }
  if (fast.overwritten.length > 0) {
    return { what: 'lines of the fast path still in use', expected: [], actual: fast.overwritten };
  }
  const slow = byFramer(withoutWasm, c, runs);
  if (slow.fast > 0 || !isDeepStrictEqual(slow.log, expected)) {
    return { what: 'the framer without WebAssembly, against the parser', expected, actual: slow.log };
  }
  if (counts) {
    counts.cases++;
    const messages = fast.log.filter((e) => e[0] === 'message').length;
    counts.messages += messages;
    counts.fast += fast.fast;
    if (fast.fast > 0 && fast.fast < messages) counts.mixed++;
    if (c.stopAfter !== undefined) counts.stopped++;
    if (reference.some((e) => e[0] === 'error')) counts.errors++;
    if (splitsBom(c)) counts.bomSplit++;
  }
  return undefined;
}

/** The case for `index` under `seed`: a stream, its cuts, and now and then a stop after some message. */
function caseOf(seed: number, index: number): Case {
  const r = new Random(caseSeed(seed, index));
  const c = generate(r);
  if (r.chance(0.25)) {
    const messages = byParser([c.bytes]).filter((e) => e[0] === 'message').length;
    c.stopAfter = r.int(1, messages + 1);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------------------------
// Making a failing case smaller, to show.

/** The case without bytes [from, to): cuts inside go, cuts after move back (never two at one place). */
function without(c: Case, from: number, to: number): Case {
  const cuts: Case['cuts'] = [];
  for (const cut of c.cuts) {
    if (cut.at > from && cut.at < to) continue;
    const at = cut.at >= to ? cut.at - (to - from) : cut.at;
    if (at > 0 && at < c.bytes.length - (to - from) && cuts.at(-1)?.at !== at) cuts.push({ ...cut, at });
  }
  return { ...c, bytes: Buffer.concat([c.bytes.subarray(0, from), c.bytes.subarray(to)]), cuts };
}

/** Pieces worth trying without: messages (up to a blank line), then lines, then single bytes of a small stream. */
function pieces(b: Buffer): Array<[number, number]> {
  const lineEnds: number[] = [];
  for (let k = 0; k < b.length; k++) {
    if (b[k] === 0x0a || (b[k] === 0x0d && b[k + 1] !== 0x0a)) lineEnds.push(k + 1);
  }
  const lines: Array<[number, number]> = lineEnds.map((end, k) => [k === 0 ? 0 : lineEnds[k - 1]!, end]);
  const last = lineEnds.at(-1) ?? 0;
  if (last < b.length) lines.push([last, b.length]);
  const blocks: Array<[number, number]> = [];
  let from = 0;
  for (const [start, end] of lines) {
    const blank = end - start <= 2 && (b[start] === 0x0a || b[start] === 0x0d);
    if (blank) {
      blocks.push([from, end]);
      from = end;
    }
  }
  // Halves, quarters… of the messages, and of long lines: a large case gets small in few steps (shrink tries the
  // larger pieces first).
  const halves: Array<[number, number]> = [];
  for (let size = 2 ** Math.floor(Math.log2(blocks.length / 2)); size >= 2; size /= 2) {
    for (let k = 0; k + size <= blocks.length; k += size) halves.push([blocks[k]![0], blocks[k + size - 1]![1]]);
  }
  for (const [start, end] of lines) {
    for (let size = 2 ** Math.floor(Math.log2((end - start) / 2)); size >= 16; size /= 2) {
      halves.push([start + 1, start + 1 + size]);
    }
  }
  const bytesOne: Array<[number, number]> =
    b.length <= 400 ? Array.from({ length: b.length }, (_, k): [number, number] => [k, k + 1]) : [];
  return [...halves, ...blocks, ...lines, ...bytesOne];
}

function shrink(c: Case, fails: (c: Case) => boolean): Case {
  let best = c;
  let budget = 3000;
  for (let progress = true; progress && budget > 0; ) {
    progress = false;
    const candidates: Array<() => Case> = [
      ...(best.stopAfter !== undefined && best.stopAfter > 1
        ? [() => ({ ...best, stopAfter: best.stopAfter! - 1 })]
        : []),
      ...(best.reuseLines ? [() => ({ ...best, reuseLines: false })] : []),
      ...(best.chunksReused ? [() => ({ ...best, chunksReused: false })] : []),
      ...pieces(best.bytes)
        .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
        .map(
          ([from, to]) =>
            () =>
              without(best, from, to),
        ),
      ...best.cuts.map((_, k) => () => ({ ...best, cuts: best.cuts.filter((_, n) => n !== k) })),
      ...best.cuts.map((cut, k) =>
        cut.run ? () => ({ ...best, cuts: best.cuts.map((x, n) => (n === k ? { ...x, run: false } : x)) }) : null,
      ),
    ].filter((f): f is () => Case => f !== null);
    for (const candidate of candidates) {
      if (--budget <= 0) break;
      const next = candidate();
      if (fails(next)) {
        best = next;
        progress = true;
        break;
      }
    }
  }
  return best;
}

/** Bytes as a JavaScript string literal that keeps every byte: `\xNN` for all but printable ASCII. */
function literal(b: Buffer): string {
  let out = '';
  for (const byte of b) {
    if (byte === 0x0a) out += '\\n';
    else if (byte === 0x0d) out += '\\r';
    else if (byte === 0x5c || byte === 0x27) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `'${out}'`;
}

function describeCase(c: Case): string {
  const runs = chunksOf(c).map((run) => `[${run.map((chunk) => literal(chunk)).join(', ')}]`);
  return [
    `stream (${c.bytes.length} bytes, ${c.size}): ${c.bytes.length <= 2000 ? literal(c.bytes) : `${literal(c.bytes.subarray(0, 2000))}…`}`,
    `runs of chunks: ${c.bytes.length <= 2000 ? `[${runs.join(', ')}]` : `${runs.length} runs, cuts at ${JSON.stringify(c.cuts.slice(0, 50))}`}`,
    `reuseLines: ${c.reuseLines}, chunksReused: ${c.chunksReused}, stop after ${c.stopAfter ?? 'never'}`,
  ].join('\n');
}

function rerun(seed: number, index: number): string {
  return `SVCADM_PROPERTY_SEED=0x${seed.toString(16)} SVCADM_PROPERTY_CASE=${index} npx vitest run ${THIS_FILE}`;
}

/** Runs the cases; a failure fails the assertion with its seed, its case, the smallest case that fails and a rerun. */
function property(seed: number, first: number, count: number, withoutWasm: typeof createSseFramer): Counts {
  const counts: Counts = { cases: 0, messages: 0, fast: 0, mixed: 0, stopped: 0, errors: 0, bomSplit: 0 };
  for (let index = first; index < first + count; index++) {
    const c = caseOf(seed, index);
    if (!runCase(c, withoutWasm, counts)) continue;
    const what = runCase(c, withoutWasm)!.what;
    const small = shrink(c, (next) => runCase(next, withoutWasm)?.what === what);
    const failure = runCase(small, withoutWasm)!;
    const text = `seed 0x${seed.toString(16)}, case ${index}: ${failure.what}\nrun it again: ${rerun(seed, index)}\nthe smallest case that still fails:\n${describeCase(small)}`;
    expect(failure.actual, text).toEqual(failure.expected);
    // toEqual may not see a difference isDeepStrictEqual sees (an undefined property): fail anyway.
    expect.fail(text);
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------

const ASKED_SEED = process.env.SVCADM_PROPERTY_SEED;
const ASKED_CASE = process.env.SVCADM_PROPERTY_CASE;
const ASKED_COUNT = process.env.SVCADM_PROPERTY_CASES;

describe('the event stream fast path, against the parser, on random streams cut at random', () => {
  if (ASKED_SEED !== undefined) {
    const seed = Number(ASKED_SEED) >>> 0;
    const first = ASKED_CASE === undefined ? 0 : Number(ASKED_CASE);
    const count = ASKED_CASE === undefined ? Number(ASKED_COUNT ?? FIXED_CASES) : 1;
    it(`seed 0x${seed.toString(16)} from SVCADM_PROPERTY_SEED, cases ${first} to ${first + count - 1}`, async () => {
      property(seed, first, count, await framerWithoutWasm());
    }, 600_000);
    return;
  }

  it(`${FIXED_CASES} cases under the fixed seed 0x${FIXED_SEED.toString(16)}`, async () => {
    const counts = property(FIXED_SEED, 0, Number(ASKED_COUNT ?? FIXED_CASES), await framerWithoutWasm());
    // Not vacuous: the fast path wrote a good share of the lines, and the cases reach stops, errors and BOMs cut in two.
    expect(counts.fast / counts.messages).toBeGreaterThan(0.3);
    expect(counts.mixed).toBeGreaterThan(counts.cases / 5);
    expect(counts.stopped).toBeGreaterThan(counts.cases / 10);
    expect(counts.errors).toBeGreaterThan(0);
    expect(counts.bomSplit).toBeGreaterThan(0);
  }, 120_000);

  const fresh = randomInt(2 ** 32);
  it(`${FRESH_CASES} cases under this run's fresh seed 0x${fresh.toString(16)} (SVCADM_PROPERTY_SEED reruns it)`, async () => {
    property(fresh, 0, FRESH_CASES, await framerWithoutWasm());
  }, 120_000);
});

describe('what the property test found', () => {
  /** The messages and retries a framer hands over until `stop()` says so, after `stopAfter` messages. */
  const stopped = (create: typeof createSseFramer, text: string, stopAfter: number) => {
    const seenIds: Array<string | undefined> = [];
    const framer = create(
      { message: (m) => seenIds.push(m.id), retry: (ms) => seenIds.push(`retry ${ms}`) },
      () => seenIds.length >= stopAfter,
    );
    framer.feed([Buffer.from(text)]);
    return seenIds;
  };

  it('hands over nothing once stop() says so, also where blank lines end in CR (the parser reads on past them)', async () => {
    // An `error` event stops `events tail`: with CR line ends, the events after it were printed all the same.
    const text = 'id: 1\revent: error\rdata: {}\r\rid: 2\rretry: 5\rdata: {}\r\rid: 3\ndata: {}\n\n';
    for (const create of [createSseFramer, await framerWithoutWasm()]) {
      expect(stopped(create, text, 1)).toEqual(['1']);
      expect(stopped(create, 'id\n\rid\n\n', 1)).toEqual(['']);
    }
  });

  it('reads no line past a stop: a line over the bound after it does not fail the stream (seed 0x281608, case 5130)', async () => {
    // The blank line ends in CRLF, so `feed(…, true)` did not return at it: the parser read on into the long line.
    const text = `data: \r\n\r\ndata: "${'h'.repeat(SSE_MAX_LINE_BYTES)}\n\n`;
    for (const create of [createSseFramer, await framerWithoutWasm()]) {
      expect(stopped(create, text, 1)).toEqual([undefined]);
    }
  });

  const parse = (chunks: readonly string[]) => byParser(chunks.map((chunk) => Buffer.from(chunk, 'latin1')));

  it('SseParser drops a byte order mark cut in two or three, as one in one piece; a start that only looks like one stays', () => {
    const stream = `${BOM}id: 1\ndata: {}\n\n`;
    const whole = parse([stream]);
    expect(whole).toEqual(parse(['id: 1\ndata: {}\n\n']));
    for (const cuts of [[1], [2], [1, 2], [1, 3], [2, 3], [1, 2, 3]]) {
      const chunks = [0, ...cuts].map((at, k) => stream.slice(at, cuts[k] ?? stream.length));
      expect(parse(chunks)).toEqual(whole);
    }
    // Bytes that begin like a byte order mark and go on otherwise belong to the first line, cut or not.
    const lookalike = '\xef\xbbid: 1\ndata: {}\n\nid: 2\ndata: {}\n\n';
    expect(parse(['\xef', '\xbb', lookalike.slice(2)])).toEqual(parse([lookalike]));
    expect(parse([lookalike]).filter((e) => e[0] === 'message')).toHaveLength(2);
  });

  it('SseParser joins a CR and the LF after it across an empty chunk (it read two line ends)', () => {
    expect(parse(['id: 1\r', '', '\ndata: {}\n\n'])).toEqual(parse(['id: 1\r\ndata: {}\n\n']));
    expect(parse(['id: 1\r', '', '', '\n\r', '', '\ndata: {}\r', '', '\n\r', '', '\n'])).toEqual(
      parse(['id: 1\r\n\r\ndata: {}\r\n\r\n']),
    );
  });
});
