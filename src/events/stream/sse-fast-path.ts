import { SSE_FRAME_WASM } from '../../generated/sse-frame-wasm.js';
import { UNSAFE_RANGES } from '../../text/sanitize.js';
import { CHUNK_RUN_MAX_BYTES } from './chunk-runs.js';
import { type SseHandlers, type SseMessage, SseParser } from './sse-parser.js';

/**
 * The event stream's framing, fast: the plain messages of each run of received bytes are framed, checked and turned
 * into NDJSON lines by WebAssembly (`wasm/sse-frame.ts`), a run at a time; every other message (a `retry:` field, CR
 * line ends, repeated fields, a message longer than FAST_MESSAGE_MAX_BYTES…) goes through `SseParser`, which keeps
 * every bound. Both hand over the same messages (test/events/stream/sse-fast-path.test.ts compares them). Without WebAssembly
 * (`--jitless`) the parser takes everything. See docs/decisions/2026-11-24-sse-fast-path-webassembly.md.
 */
export interface SseFramer {
  /** Takes a run of received chunks; calls the handlers for each message, and stops early once `stop()` says so. */
  feed(run: readonly Buffer[]): void;
}

export interface FramerOptions {
  /**
   * The events' lines may point into memory used again (no copy): a run's lines stay as they are until the run
   * REUSED_AFTER later is fed. For a caller that has written a run's lines, and keeps none, by then (`events tail`).
   */
  reuseLines?: boolean | undefined;
  /**
   * The chunks fed are views of memory written again once the next run is fed (chunk-runs.ts's `reuseMemory`). The
   * parser keeps pieces of what it is given (an unfinished line or message, an event's data): it is given copies.
   */
  chunksReused?: boolean | undefined;
}

export function createSseFramer(handlers: SseHandlers, stop: () => boolean, options: FramerOptions = {}): SseFramer {
  // `feed(…, true)` ends at a blank line ending in LF only: past one ending in CR, the parser goes on to the next
  // messages of its bytes. None of them is handed over once `stop()` says so, and the parser reads no line past it
  // (a line over the bounds there would fail a stream that has stopped: test/events/stream/sse-fast-path.property.test.ts).
  const parser = new SseParser({
    message(message) {
      if (!stop()) handlers.message(message);
    },
    retry(ms) {
      if (!stop()) handlers.retry(ms);
    },
    stop,
  });
  const wasm = frameModule();
  if (!wasm) {
    return {
      feed(run) {
        for (const received of run) {
          const chunk = options.chunksReused ? Buffer.from(received) : received;
          // A message at a time, as the fast path hands them over: nothing more once `stop()` says so.
          for (let rest = chunk, at = parser.feed(rest, true); ; at = parser.feed(rest, true)) {
            if (stop()) return;
            if (at === undefined) break;
            rest = rest.subarray(at);
          }
        }
      },
    };
  }
  return new FastFramer(wasm, parser, handlers, stop, options);
}

/** An unfinished message longer than this goes to the parser, which holds it in pieces within its bounds. */
const FAST_MESSAGE_MAX_BYTES = 64 * 1024;
/** Records a frame call writes before it returns to have them handed over (and is called again). */
const MAX_RECORDS = 1024;
/**
 * A run is at most CHUNK_RUN_MAX_BYTES and a socket read more (chunk-runs.ts), after an unfinished message of at
 * most FAST_MESSAGE_MAX_BYTES; a larger run's excess goes to the parser.
 */
const INPUT_BYTES = CHUNK_RUN_MAX_BYTES + 64 * 1024 + FAST_MESSAGE_MAX_BYTES;
/** A line is never longer than its message: a run's lines fit in as much as its input. */
const OUTPUT_BYTES = INPUT_BYTES;
/**
 * Runs whose lines are kept as written before their area is used again (`reuseLines`): the caller may still be
 * writing the lines of the last REUSED_AFTER - 1 runs while it feeds the next.
 */
export const REUSED_AFTER = 2;
const OUTPUT_AREAS = REUSED_AFTER;
/** The unsafe ranges above U+FFFF the module has room for (MAX_ASTRAL in wasm/sse-frame.ts). */
const ASTRAL_MAX = 16;
/** Room past the input for reads of sixteen bytes at a time. */
const SLACK = 64;
const PAGE = 65536;

/** `stopReason()` of the module (2, a message the parser must take, needs nothing of its own here). */
const STOP_INCOMPLETE = 1;
const STOP_FULL = 3;

/** A record: ten i32 (wasm/sse-frame.ts). */
const RECORD_INTS = 10;
const HAS_ID = 1;
const HAS_EVENT = 2;
const HAS_DATA = 4;
const WRITTEN = 8;

/** The part of the WebAssembly API used here (the project's type library is ES2023 and Node's, without it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

interface FrameExports {
  memory: WasmMemory;
  unsafeBmp(): number;
  astralRanges(): number;
  setAstralCount(count: number): void;
  heapStart(): number;
  typeBytes(index: number): number;
  typeLength(index: number): number;
  stoppedAt(): number;
  stopReason(): number;
  outputLength(): number;
  frame(input: number, length: number, output: number, outputCapacity: number, records: number, max: number): number;
}

let compiled: object | null | undefined;

/**
 * An instance of the module for one connection (it holds the connection's unfinished message and its table of
 * event types), compiled once per process; null without WebAssembly.
 */
function frameModule(): FrameExports | null {
  if (compiled === undefined) {
    try {
      compiled = wasmApi ? new wasmApi.Module(Buffer.from(SSE_FRAME_WASM, 'base64')) : null;
    } catch {
      // No WebAssembly (--jitless) or no SIMD on this machine: the parser does it all.
      compiled = null;
    }
  }
  if (compiled === null || !wasmApi) return null;
  const exports = new wasmApi.Instance(compiled, {}).exports as FrameExports;
  const bytes = new Uint8Array(exports.memory.buffer);
  const bmp = exports.unsafeBmp();
  const astral: Array<readonly [number, number]> = [];
  for (const [from, to] of UNSAFE_RANGES) {
    for (let cp = from; cp <= Math.min(to, 0xffff); cp++) bytes[bmp + (cp >> 3)]! |= 1 << (cp & 7);
    if (to > 0xffff) astral.push([Math.max(from, 0x10000), to]);
  }
  // A range past the module's room would be let through unescaped: a change to sanitize.ts's table fails here.
  if (astral.length > ASTRAL_MAX)
    throw new Error(`wasm/sse-frame.ts holds ${ASTRAL_MAX} ranges above U+FFFF, not ${astral.length}`);
  const pairs = new Uint32Array(exports.memory.buffer, exports.astralRanges(), astral.length * 2);
  astral.forEach(([from, to], k) => {
    pairs[k * 2] = from;
    pairs[k * 2 + 1] = to;
  });
  exports.setAstralCount(astral.length);
  return exports;
}

const EMPTY = Buffer.alloc(0);
/** Where a message ends at the latest: a blank line ending in LF (SseParser.feed's `untilMessageEnd`). */
const LF_LF = Buffer.from('\n\n');

/** A message whose line the fast path wrote: its data is only looked at for an `error` or an offset. */
class WrittenMessage implements SseMessage {
  readonly hasData = true;

  constructor(
    readonly id: string | undefined,
    readonly event: string,
    readonly line: readonly Buffer[],
    readonly memory: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}

  /** A view, valid during the `message` call as the parser's data is. */
  get data(): Buffer {
    return this.memory.subarray(this.start, this.end);
  }
}

class FastFramer implements SseFramer {
  readonly #wasm: FrameExports;
  readonly #parser: SseParser;
  readonly #handlers: SseHandlers;
  readonly #stop: () => boolean;
  readonly #reuseLines: boolean;
  readonly #chunksReused: boolean;
  /** Until the parser reaches a message boundary, it takes the bytes: it starts (a byte order mark, `retry:`). */
  #parserHasIt = true;
  /** The memory's layout: [input][output][output][records], each area with slack after it. */
  readonly #input: number;
  readonly #outputs: readonly number[];
  #turn = 0;
  readonly #records: number;
  readonly #memory: Buffer;
  readonly #ints: Int32Array;
  /** Bytes at the start of the input area: the start of a message that has not ended. */
  #held = 0;
  /** The output area of the current run (the areas take turns: `reuseLines`), and how much of it is written. */
  #output: number;
  #outputUsed = 0;
  readonly #types: string[] = [];

  constructor(
    wasm: FrameExports,
    parser: SseParser,
    handlers: SseHandlers,
    stop: () => boolean,
    options: FramerOptions,
  ) {
    this.#wasm = wasm;
    this.#parser = parser;
    this.#handlers = handlers;
    this.#stop = stop;
    this.#reuseLines = options.reuseLines === true;
    this.#chunksReused = options.chunksReused === true;
    this.#input = wasm.heapStart();
    const first = this.#input + INPUT_BYTES + SLACK;
    this.#outputs = Array.from({ length: OUTPUT_AREAS }, (_, k) => first + k * (OUTPUT_BYTES + SLACK));
    this.#output = first;
    this.#records = first + OUTPUT_AREAS * (OUTPUT_BYTES + SLACK);
    const end = this.#records + MAX_RECORDS * RECORD_INTS * 4;
    const memory = wasm.memory;
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
    this.#memory = Buffer.from(memory.buffer);
    this.#ints = new Int32Array(memory.buffer);
  }

  feed(run: readonly Buffer[]): void {
    this.#turn = (this.#turn + 1) % OUTPUT_AREAS;
    this.#output = this.#outputs[this.#turn]!;
    this.#outputUsed = 0;
    for (const chunk of run) if (!this.#take(chunk)) return;
    this.#drain();
  }

  /** Puts a chunk where it goes: to the parser until a message boundary, then into the input area; false on stop. */
  #take(chunk: Buffer): boolean {
    let rest = chunk;
    let own = !this.#chunksReused;
    while (rest.length > 0) {
      if (this.#parserHasIt) {
        if (!own) {
          rest = Buffer.from(rest);
          own = true;
        }
        const at = this.#parser.feed(rest, true);
        if (this.#stop()) return false;
        if (at === undefined) return true;
        this.#parserHasIt = false;
        rest = rest.subarray(at);
        continue;
      }
      if (this.#held + rest.length > INPUT_BYTES) {
        // More than a run holds (chunk-runs.ts): what is held is framed first, then the parser takes an unfinished rest.
        if (!this.#drain()) return false;
        if (!this.#parserHasIt && this.#held + rest.length > INPUT_BYTES) this.#toParser();
        continue;
      }
      this.#memory.set(rest, this.#input + this.#held);
      this.#held += rest.length;
      return true;
    }
    return true;
  }

  /** The parser takes the held bytes, which start at a message boundary. */
  #toParser(): void {
    const held = Buffer.from(this.#memory.subarray(this.#input, this.#input + this.#held));
    this.#held = 0;
    this.#parserHasIt = true;
    // Held bytes are one unfinished message (#drain hands over each finished one): the parser keeps it.
    this.#parser.feed(held);
  }

  /**
   * Frames what the input area holds; what the fast path does not take goes to the parser, and back at the next
   * message boundary. Keeps an unfinished message. False on stop.
   */
  #drain(): boolean {
    const wasm = this.#wasm;
    let from = 0;
    while (from < this.#held) {
      const output = this.#output + this.#outputUsed;
      const count = wasm.frame(
        this.#input + from,
        this.#held - from,
        output,
        OUTPUT_BYTES - this.#outputUsed,
        this.#records,
        MAX_RECORDS,
      );
      const at = from + wasm.stoppedAt();
      const why = wasm.stopReason();
      const written = wasm.outputLength();
      this.#outputUsed += written;
      if (!this.#deliver(this.#input + from, count, output, written)) return false;
      from = at;
      if (why === STOP_FULL && count > 0) continue;
      if (why === STOP_INCOMPLETE && this.#held - from <= FAST_MESSAGE_MAX_BYTES) break;
      if (from === this.#held) break;
      // The parser takes the message here, from its boundary through its blank line: only that is copied (not the
      // rest of the run again for each message the fast path leaves), and the fast path goes on where it hands back.
      const rest = this.#memory.subarray(this.#input + from, this.#input + this.#held);
      const blank = rest.indexOf(LF_LF);
      const piece = Buffer.from(blank === -1 ? rest : rest.subarray(0, blank + LF_LF.length));
      const taken = this.#parser.feed(piece, true);
      if (this.#stop()) return false;
      if (taken === undefined) {
        // No boundary yet: the parser keeps the message, and what follows, until one comes.
        if (piece.length < rest.length) this.#parser.feed(Buffer.from(rest.subarray(piece.length)));
        this.#parserHasIt = true;
        this.#held = 0;
        return true;
      }
      from += taken;
    }
    // What is left is the start of a message: kept at the start of the input area.
    if (from > 0) this.#memory.copyWithin(this.#input, this.#input + from, this.#input + this.#held);
    this.#held -= from;
    return true;
  }

  /**
   * Hands over `count` records of a frame call on the input at `base`, which wrote `written` bytes of lines at
   * `outputAt`; false once `stop()` says so.
   */
  #deliver(base: number, count: number, outputAt: number, written: number): boolean {
    if (count === 0) return true;
    const memory = this.#memory;
    const ints = this.#ints;
    const output = this.#reuseLines
      ? memory.subarray(outputAt, outputAt + written)
      : Buffer.from(memory.subarray(outputAt, outputAt + written));
    for (let k = 0; k < count; k++) {
      const r = (this.#records >> 2) + k * RECORD_INTS;
      const flags = ints[r]!;
      let id: string | undefined;
      if (flags & HAS_ID) {
        id = memory.toString('utf8', base + ints[r + 1]!, base + ints[r + 2]!);
        if (id.includes('\u0000')) id = undefined;
      }
      const slot = ints[r + 3]!;
      let event = 'message';
      if (slot >= 0) event = this.#types[slot] ?? this.#typeName(slot);
      else if (flags & HAS_EVENT) {
        event = memory.toString('utf8', base + ints[r + 4]!, base + ints[r + 5]!) || 'message';
      }
      if (id === undefined && !(flags & HAS_DATA)) continue;
      let message: SseMessage;
      if (flags & WRITTEN) {
        const line = [output.subarray(ints[r + 8]!, ints[r + 9]!)];
        message = new WrittenMessage(id, event, line, memory, base + ints[r + 6]!, base + ints[r + 7]!);
      } else {
        // A copy: a line eventLine makes may point into it, and the memory is used again for the next run.
        const data = flags & HAS_DATA ? Buffer.from(memory.subarray(base + ints[r + 6]!, base + ints[r + 7]!)) : EMPTY;
        message = { id, event, hasData: (flags & HAS_DATA) !== 0, data };
      }
      this.#handlers.message(message);
      if (this.#stop()) return false;
    }
    return true;
  }

  #typeName(slot: number): string {
    const at = this.#wasm.typeBytes(slot);
    const name = this.#memory.toString('latin1', at, at + this.#wasm.typeLength(slot));
    this.#types[slot] = name;
    return name;
  }
}
