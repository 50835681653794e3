import type { Invocation } from '../../cli/invocation.js';
import { CliError, Interrupted, UsageError } from '../../errors.js';
import type { Progress } from '../../io/io-streams.js';
import { RecordFile } from '../../io/record-file.js';
import type { ItemStream } from '../../io/stream-types.js';
import type { TailStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import { DeliverySink, stopsBeforeEvent } from '../forward/delivery.js';
import { announceForwarding } from '../forward/forwarder.js';
import { typeFilter } from '../pipeline/filters.js';
import { type ItemSource, Pipeline, type ShownItem, type SourceEntry, type SourceEvent } from '../pipeline/pipeline.js';
import type { MalformedLine } from '../pipeline/recorded-file.js';
import type { StreamNote } from '../pipeline/stream-notes.js';
import { CursorFileWriter } from './cursor-file.js';
import { RunEnding } from './ending.js';
import type { EventsSource, RunNote, RunOptions } from './source.js';
import { RunStatus } from './status.js';
import { RunStops } from './stops.js';
import { RunStreams } from './streams.js';
import { TenantFailures } from './tenant-failures.js';

/** The progress line of a recorded file is redrawn at most this often. */
const PROGRESS_EVERY_MS = 250;

/** Runs `source` through the events pipeline until it ends or is stopped: `events tail`, across tenants, `replay`. */
export async function runEvents<E extends SourceEvent, P, R>(
  inv: Invocation,
  source: EventsSource<E, P, R>,
  opts: RunOptions,
): Promise<void> {
  const run = await EventsRun.open(inv, source, opts);
  await run.run();
}

/** What a run opened before it started: the files a user named, and the app's delivery. */
interface Sinks {
  readonly cursorFile: CursorFileWriter | undefined;
  readonly record: RecordFile | undefined;
  readonly delivery: DeliverySink | undefined;
}

/** One run of the events pipeline: its sinks, stops, status and end. */
class EventsRun<E extends SourceEvent, P, R> {
  readonly #streams: RunStreams;
  readonly #failures: TenantFailures | undefined;
  readonly #progress: Progress | undefined;
  readonly #stops: RunStops;
  readonly #pipeline: Pipeline<E, P, RunNote>;
  /** A malformed line stopped the run (`--strict`). */
  #strictStop: UsageError | undefined;
  #malformed = 0;
  #lastProgress = Number.NEGATIVE_INFINITY;

  private constructor(
    private readonly inv: Invocation,
    private readonly source: EventsSource<E, P, R>,
    private readonly opts: RunOptions,
    private readonly sinks: Sinks,
    private readonly items: ItemSource<E, P, RunNote>,
    private readonly status: RunStatus,
    private readonly stream: ItemStream<ShownItem<E>, TailStatus>,
  ) {
    const { clock } = inv.ctx;
    this.#streams = new RunStreams(source.streams, clock.now());
    this.#failures = source.tenants && new TenantFailures(inv, source.tenants);
    this.#progress = source.reading && inv.io.progress();
    this.#stops = new RunStops(inv.ctx.interrupt, clock, opts.durationMs, stream.quit);
    this.#pipeline = this.#makePipeline();
  }

  /**
   * Opens what the user named before anything is sent (a file that cannot be used is exit 2), says where events go,
   * and opens the Printer's stream.
   */
  static async open<E extends SourceEvent, P, R>(
    inv: Invocation,
    source: EventsSource<E, P, R>,
    opts: RunOptions,
  ): Promise<EventsRun<E, P, R>> {
    const { clock } = inv.ctx;
    const cursorFile = opts.cursorFile === undefined ? undefined : new CursorFileWriter(opts.cursorFile, clock);
    cursorFile?.check();
    const record = opts.outputFile === undefined ? undefined : RecordFile.open(opts.outputFile);
    let run: EventsRun<E, P, R> | undefined;
    // Delivered one at a time; the position moves only past what the app acknowledged or what was set aside in the
    // dead letters (opened here).
    const delivery =
      opts.forward &&
      DeliverySink.open(
        inv.services.http(),
        opts.forward,
        clock,
        (text, always) => run?.notice(text, always),
        () => run?.status.forwarding(run.sinks.delivery!.status()),
      );
    const items = source.open();
    const state = source.streams.length > 0 ? 'connecting' : 'connected';
    const start = source.positions.label(source.positions.start, undefined);
    const status = new RunStatus(state, opts.types, start, clock, delivery?.status());
    if (opts.forward) announceForwarding(inv.out, opts.forward.target, (text) => inv.io.warn(text));
    const stream = await inv.out.stream(source.formats, status.now);
    run = new EventsRun(inv, source, opts, { cursorFile, record, delivery }, items, status, stream);
    return run;
  }

  /** A line on stderr (above the live view, clear of the progress line). */
  notice(text: string, always?: boolean): void {
    this.#progress?.done();
    this.stream.notice(text, always);
  }

  async run(): Promise<void> {
    const { source, sinks } = this;
    const pipeline = this.#pipeline;
    this.status.show(this.stream);
    // Where the run starts, in the file from the first moment: a tail stopped before any event resumes from there.
    const startText = source.positions.fileText?.(source.positions.start);
    if (startText !== undefined) sinks.cursorFile?.begin(startText);
    this.#stops.follow(pipeline.writeFailed.signal);
    let failure: unknown;
    try {
      await pipeline.run();
    } catch (err) {
      failure = err;
      await this.#finishAfter(err);
    } finally {
      this.#stops.end();
      this.#progress?.done();
    }
    const ending = new RunEnding({
      inv: this.inv,
      source,
      opts: this.opts,
      pipeline,
      stops: this.#stops,
      streams: this.#streams,
      failures: this.#failures,
      delivery: sinks.delivery,
      malformed: this.#malformed,
    });
    failure = await this.#close(failure, ending);
    await ending.end(failure, this.#stoppedBy(failure));
  }

  #makePipeline(): Pipeline<E, P, RunNote> {
    const { source, opts, status } = this;
    const { delivery, record, cursorFile } = this.sinks;
    const eventOf = (item: E) => source.eventOf(item);
    const pipeline: Pipeline<E, P, RunNote> = new Pipeline<E, P, RunNote>({
      source: this.items,
      accepts: typeFilter(opts.types, (item: E) => eventOf(item).type),
      deliver: delivery && ((item) => delivery.settle(eventOf(item))),
      prepare: delivery && ((item) => delivery.prepare(eventOf(item))),
      record: record && { sink: record, lines: (item) => eventOf(item).line },
      printer: this.stream,
      written: () => this.inv.io.settled(),
      // The cursor file moves only past lines the system took without error (at least once, never skipped).
      settledTo: (position) => {
        const text = source.positions.fileText?.(position);
        if (text !== undefined) cursorFile?.update(text);
      },
      note: (note) => this.#note(note),
      afterBatch: (batch) => this.#afterBatch(batch, pipeline.count),
      // The status first: the live view draws it under the new lines (and again at most every 100 ms).
      progress: (seen, position, last) =>
        status.progress(seen, source.positions.label(position, last), delivery?.status()),
      maxItems: opts.maxEvents,
      signal: this.#stops.signal,
      writeEachDelivery: this.stream.live,
      start: source.positions.start,
    });
    return pipeline;
  }

  #note(note: RunNote): void {
    switch (note.kind) {
      case 'stream-note':
        this.#streamNote(note.stream, note.note);
        break;
      case 'stream-failed':
        this.#streamFailed(note.stream, note.error);
        break;
      case 'stream-ended':
        this.#streams.ended(note.stream);
        break;
      case 'malformed':
        this.#malformedLine(note);
        break;
      default:
        this.#streamNote('', note);
    }
  }

  /** A stream's own note: its health, the status line, and what is said on stderr. */
  #streamNote(name: string, note: StreamNote): void {
    const who = name === '' ? '' : `${name}: `;
    switch (note.kind) {
      case 'connected':
        this.#streams.connected(name);
        if (!this.#streams.anyDown) this.status.connected();
        return;
      case 'reconnecting':
        this.#streams.failed(name, note.reason, this.inv.ctx.clock.now(), note);
        this.status.reconnecting(note.attempt, note.waitMs, `${who}${note.reason}`);
        if (!this.stream.live) {
          const wait = (note.waitMs / 1000).toFixed(1);
          this.notice(`svcadm: ${who}${neutralize(note.reason)}; reconnecting in ${wait}s (attempt ${note.attempt})`);
        }
        return;
      case 'stream-error':
        if (!note.fatal) {
          const what = `(${neutralize(note.code)}): ${neutralize(note.message)}`;
          this.notice(`svcadm: ${who}the service reported a stream error ${what}`, true);
        }
        return;
      case 'warning':
        this.notice(`svcadm: ${who}warning: ${neutralize(note.message)}`, true);
        return;
    }
  }

  /**
   * A stream's subscription ended with an error: a tenant's is reported now and the others go on (unless
   * `--fail-fast`); a lone tail's ends the run with it.
   */
  #streamFailed(name: string, error: unknown): void {
    if (error instanceof Interrupted) {
      this.#streams.ended(name);
      return;
    }
    this.#streams.endedBy(name, error);
    if (!this.#failures) return;
    this.#failures.fail(name, error);
    if (this.inv.globals.failFast) this.#stops.failFast.abort(name);
  }

  #malformedLine(bad: MalformedLine): void {
    const where = `line ${bad.line} of ${neutralize(this.source.reading?.path ?? '')}`;
    if (this.opts.strict) {
      this.#strictStop = new UsageError(`${where} is not an event: ${neutralize(bad.reason)}`);
      throw this.#strictStop;
    }
    this.#malformed++;
    this.notice(`svcadm: skipped ${where}: ${neutralize(bad.reason)}`, true);
  }

  #afterBatch(batch: readonly SourceEntry<E, P, RunNote>[], count: number): void {
    if (this.stream.live && batch.some((entry) => entry.kind !== 'event' && entry.kind !== 'cursor')) {
      this.status.refresh();
    }
    const reading = this.source.reading;
    if (!reading || this.stream.live) return;
    const now = this.inv.ctx.clock.now();
    if (now - this.#lastProgress < PROGRESS_EVERY_MS) return;
    this.#lastProgress = now;
    this.#progress?.update(reading.progress(count));
  }

  /** The failure a sink (or `--strict`) stopped the run with: the run still says where it stopped and how to resume. */
  #stoppedBy(failure: unknown): CliError | undefined {
    if (!(failure instanceof CliError) || failure instanceof Interrupted) return undefined;
    const stops =
      failure.reason === 'cursor_file_failed' ||
      stopsBeforeEvent(failure) ||
      failure === this.#pipeline.recordFailure ||
      failure === this.sinks.delivery?.deadLetterFailure ||
      failure === this.#strictStop;
    return stops ? failure : undefined;
  }

  /** After a stop (a signal, a sink that stopped the run), what was taken is written; else nothing more. */
  async #finishAfter(failure: unknown): Promise<void> {
    const stoppedBy = this.#stoppedBy(failure);
    if (!(failure instanceof Interrupted) && stoppedBy === undefined) return;
    // The cursor file cannot say more: what waits would move no position that can be kept.
    if (stoppedBy?.reason === 'cursor_file_failed' && this.#pipeline.recordFailure === undefined) return;
    await this.#pipeline.finishAfterStop().catch(() => {});
  }

  /** The last status line, the cursor file's last write, and everything opened closed. */
  async #close(failure: unknown, ending: RunEnding<P>): Promise<unknown> {
    const { count, position } = this.#pipeline;
    const label = this.source.positions.label(position, undefined) ?? this.status.now.cursor;
    this.stream.close(this.status.final(ending.reason(failure), count, label));
    let first = failure;
    try {
      await this.sinks.cursorFile?.flush();
    } catch (err) {
      first ??= err;
    }
    this.sinks.record?.close();
    this.sinks.delivery?.close();
    this.source.close?.();
    return first;
  }
}
