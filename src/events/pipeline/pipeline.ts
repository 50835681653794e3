import type { ItemStream } from '../../io/stream-types.js';

/**
 * The one pipeline behind `events tail` and `events replay` (and any other source of events): a source of entries,
 * the filters, then the sinks — the forwarder and its dead letters, the output file, the Printer — with the position
 * (the tail's cursor, the replay's line number) moved only past what every sink has settled.
 *
 *   source ─▶ filters ─▶ delivery (forwarder ▸ dead letters) ─▶ output file ─▶ Printer ─▶ settled position
 */

/** An item the source brings: anything with `kind: 'event'` (a StreamEvent, a tenant's event in a merged tail…). */
export interface SourceEvent {
  readonly kind: 'event';
}

/** The position moved without an item (a heartbeat's offset, a line that holds no event). */
export interface PositionEntry<P> {
  readonly kind: 'cursor';
  readonly offset: P;
}

/** What a source yields, in order: items, positions, and notes of its own (connected, reconnecting…). */
export type SourceEntry<E extends SourceEvent, P, N extends { readonly kind: string }> = E | PositionEntry<P> | N;

/**
 * Where items come from. `batches` yields runs of entries in order; the pipeline has handed a batch to its sinks
 * before it asks for the next one. Implement it to feed the pipeline from anything (a stream, a file, several
 * tenants' streams merged).
 */
export interface ItemSource<E extends SourceEvent, P, N extends { readonly kind: string }> {
  batches(signal: AbortSignal): AsyncIterable<readonly SourceEntry<E, P, N>[]>;
  /** Where an item puts the position once it is settled; undefined: the position stays. */
  positionOf(event: E): P | undefined;
  /**
   * How many batches written to stdout may be still unsettled when the next one is asked for: a source that reuses
   * the memory of its items' lines (the tail's fast path) needs them settled by then.
   */
  readonly unsettledBatches: number;
  /**
   * A source of several streams (the tenants of a merged tail): `maxItems` then bounds each stream, and a stream
   * that reached it is ended (`end`), the others going on. Without it the source is one stream.
   */
  readonly streams?: SourceStreams<E> | undefined;
}

/** The streams of a source that merges several: which one an item came from, and how to end one. */
export interface SourceStreams<E> {
  of(event: E): string;
  /** Stop reading `stream` (it reached `maxItems`); the source says so with a note of its own when it has. */
  end(stream: string): void;
}

/** How the delivery sink (the forwarder, then the dead letters) settled an item. */
export interface Settlement {
  /** `acknowledged`: the app took it (2xx); `dead-lettered`: set aside in the dead-letter file. */
  readonly outcome: 'acknowledged' | 'dead-lettered';
  /** The app's last HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** Attempts made. */
  readonly attempts: number;
}

/** An item as the Printer gets it: with how the delivery sink settled it, when forwarding. */
export interface ShownItem<E> {
  readonly event: E;
  readonly acknowledged?: Settlement | undefined;
}

/** `--output-file`: whole lines appended at once (a failure throws, none of them written). */
export interface LineSink {
  append(lines: readonly Uint8Array[]): void;
}

export interface PipelineOptions<E extends SourceEvent, P, N extends { readonly kind: string }> {
  source: ItemSource<E, P, N>;
  /** The filter stage (`--type`, the same for every source): an item it refuses moves the position only. */
  accepts?: ((event: E) => boolean) | undefined;
  /** The delivery sink: resolves once the item is settled (acknowledged or dead-lettered), throws when it cannot be. */
  deliver?: ((event: E) => Promise<Settlement>) | undefined;
  /**
   * Makes the next item ready for `deliver` (nothing sent), run while the item before it is with the app: its
   * preparation then overlaps the app's work instead of following it. Delivery stays one at a time, in order.
   */
  prepare?: ((event: E) => void) | undefined;
  /** The output file, and an item's lines in it. */
  record?: { sink: LineSink; lines(event: E): readonly Uint8Array[] } | undefined;
  /** The Printer's stream. */
  printer: ItemStream<ShownItem<E>, unknown>;
  /** Resolves once what was handed to stdout has been written; rejects when the write failed. */
  written(): Promise<void>;
  /** Told the position every sink has settled up to (what a cursor file may say), when it moves. */
  settledTo?: ((position: P) => void) | undefined;
  /** Told each note of the source (connected, reconnecting, warnings…), in order. */
  note(note: N): void;
  /** After each batch's entries, before it is written (a live view's redraw). */
  afterBatch?: ((batch: readonly SourceEntry<E, P, N>[]) => void) | undefined;
  /** Before items are written: how many have gone through, the position reached, and the last item. */
  progress?: ((count: number, position: P | undefined, last: E | undefined) => void) | undefined;
  /** Stop after this many items (of each stream, for a source of several). */
  maxItems?: number | undefined;
  /** Ends the run between two deliveries (a stop while an item is with the app waits for its settlement). */
  signal: AbortSignal;
  /** Write each delivered item at once (the live view shows each acknowledgement as it comes). */
  writeEachDelivery?: boolean | undefined;
  /** Where the run starts. */
  start: P | undefined;
}

/** Runs items from a source through the sinks, and keeps count of what was settled. */
export class Pipeline<E extends SourceEvent, P, N extends { readonly kind: string }> {
  /** Items that went through the sinks (counted as they are handed to the Printer). */
  count = 0;
  /** The position reached. */
  position: P | undefined;
  /** Items whose writes have settled, and the position past them. */
  settledCount = 0;
  settledPosition: P | undefined;
  /** Stopped by `maxItems` (a source of one stream). */
  full = false;
  /** The streams that reached `maxItems` (a source of several: the others went on). */
  readonly fullStreams = new Set<string>();
  /** A failed write to the output file: past it nothing more is shown. */
  recordFailure: unknown;
  /** Aborts when a write to stdout failed after it was handed over (the failure is thrown where it is awaited). */
  readonly writeFailed = new AbortController();

  readonly #opts: PipelineOptions<E, P, N>;
  #pending: ShownItem<E>[] = [];
  /** The last item that went through. */
  #last: E | undefined;
  /** The item with the delivery sink, while one is. */
  #inFlight: E | undefined;
  /**
   * The batches written whose writes may not have settled yet (at most `unsettledBatches` between batches): the next
   * batch is read and written meanwhile (a pipe's reader and svcadm then work at once), and the position moves past
   * a batch once its write has settled.
   */
  readonly #unsettled: Array<{ settled: Promise<void>; position: P | undefined; count: number }> = [];

  constructor(opts: PipelineOptions<E, P, N>) {
    this.#opts = opts;
    this.position = opts.start;
    this.settledPosition = opts.start;
  }

  /**
   * Until the source ends, `maxItems` is reached or the signal stops it (no batch is taken after a stop: what was
   * taken is written by `finishAfterStop`); a failure of a sink is thrown.
   */
  async run(): Promise<void> {
    const { source, deliver, accepts, signal, note, afterBatch } = this.#opts;
    const eachDelivery = deliver !== undefined && this.#opts.writeEachDelivery === true;
    const prepare = deliver ? this.#opts.prepare : undefined;
    for await (const batch of source.batches(signal)) {
      if (signal.aborted) break;
      for (let index = 0; index < batch.length; index++) {
        const entry = batch[index]!;
        if (entry.kind === 'event') {
          const event = entry as E;
          if (deliver && signal.aborted) break;
          const at = source.positionOf(event);
          if (accepts && !accepts(event)) {
            if (at !== undefined) this.position = at;
            continue;
          }
          let acknowledged: Settlement | undefined;
          if (deliver) {
            this.#inFlight = event;
            const delivered = deliver(event);
            if (prepare) this.#prepareAfter(batch, index + 1, prepare);
            try {
              acknowledged = await delivered;
            } finally {
              this.#inFlight = undefined;
            }
          }
          // A dead letter is settled by its line in the dead-letter file: the Printer and the output file show
          // what the app took.
          if (acknowledged?.outcome !== 'dead-lettered') this.#pending.push({ event, acknowledged });
          this.count++;
          this.#last = event;
          if (at !== undefined) this.position = at;
          if (eachDelivery) await this.flush();
          if (this.#reachedMax(event)) break;
        } else if (entry.kind === 'cursor') this.position = (entry as PositionEntry<P>).offset;
        else note(entry as N);
      }
      afterBatch?.(batch);
      await this.flush();
      if (this.full) break;
    }
    await this.flush(true);
  }

  /** Per stream of a source of several: a batch comes from one stream, so the rest of a full one's batch is left. */
  readonly #perStream = new Map<string, number>();

  /** Whether `event` was the last its stream may bring (`maxItems`); a source of several ends that stream. */
  #reachedMax(event: E): boolean {
    const { maxItems, source } = this.#opts;
    if (maxItems === undefined) return false;
    const streams = source.streams;
    if (streams === undefined) {
      this.full = this.count >= maxItems;
      return this.full;
    }
    const stream = streams.of(event);
    const count = (this.#perStream.get(stream) ?? 0) + 1;
    this.#perStream.set(stream, count);
    if (count < maxItems) return false;
    this.fullStreams.add(stream);
    streams.end(stream);
    return true;
  }

  /**
   * Once the request in flight has been written (after its promises, before its answer is read), makes the next
   * item of the batch ready. Only within the batch: a source may reuse a batch's memory for the next one.
   */
  #prepareAfter(batch: readonly SourceEntry<E, P, N>[], from: number, prepare: (event: E) => void): void {
    const { accepts } = this.#opts;
    for (let index = from; index < batch.length; index++) {
      const entry = batch[index]!;
      if (entry.kind !== 'event') continue;
      const event = entry as E;
      if (accepts && !accepts(event)) continue;
      const during = this.#inFlight;
      setImmediate(() => {
        // Only while the item that asked is still with the app (the batch, and its memory, still current). A
        // failure is left for `deliver` to meet, in its place.
        if (this.#inFlight !== during) return;
        try {
          prepare(event);
        } catch {}
      });
      return;
    }
  }

  /**
   * Hands what went through to the output file and the Printer, and moves the settled position past what has
   * settled. `last`: and waits until all of it has.
   */
  async flush(last = false): Promise<void> {
    const { printer, record } = this.#opts;
    this.#opts.progress?.(this.count, this.position, this.#last);
    const pending = this.#pending;
    if (pending.length > 0 && record) {
      try {
        record.sink.append(pending.flatMap((item) => record.lines(item.event)));
      } catch (err) {
        this.recordFailure = err;
        throw err;
      }
    }
    let settled: Promise<void> | undefined;
    if (pending.length > 0) {
      await printer.write(pending);
      settled = this.#opts.written();
      // Awaited at the next flush, or at the end when the failure stops the stream.
      settled.catch(() => this.writeFailed.abort());
    }
    this.#pending = [];
    this.#unsettled.push({ settled: settled ?? Promise.resolve(), position: this.position, count: this.count });
    await this.settle(last || settled === undefined ? 0 : this.#opts.source.unsettledBatches);
  }

  /** Waits until at most `keep` written batches are unsettled, moving the settled position past the others. */
  async settle(keep = 0): Promise<void> {
    while (this.#unsettled.length > keep) {
      const batch = this.#unsettled.shift()!;
      await batch.settled;
      const moved = batch.position !== undefined && batch.position !== this.settledPosition;
      this.settledCount = batch.count;
      this.settledPosition = batch.position;
      // Settled whatever the cursor file then does: a file that cannot be written stops the run, and the resume
      // line says where it stood.
      if (moved && batch.position !== undefined) this.#opts.settledTo?.(batch.position);
    }
  }

  /**
   * After a stop (a signal, an app that gave up): what was handed over is written and settled. Past a failed output
   * file nothing more is shown, and the position goes back to where the file ends; so it does when stdout cannot
   * take what waits (a reader that reads nothing, given up on after a signal): what was shown is what settled.
   */
  async finishAfterStop(): Promise<void> {
    if (this.recordFailure !== undefined) {
      await this.settle(0).catch(() => {});
      this.#backToSettled();
      return;
    }
    try {
      await this.flush(true);
    } catch (err) {
      this.#backToSettled();
      throw err;
    }
  }

  #backToSettled(): void {
    this.position = this.settledPosition;
    this.count = this.settledCount;
  }
}
