import { timestampOf } from '../../api/timestamp.js';
import type { Invocation } from '../../cli/invocation.js';
import type { PasteHint } from '../../cli/paste.js';
import { CliError, Interrupted, interruption, OutputError, UsageError } from '../../errors.js';
import type { Progress } from '../../io/io-streams.js';
import { RecordFile } from '../../io/record-file.js';
import type { ItemStream, StreamFormats } from '../../io/stream-types.js';
import { groupedCount } from '../../render/progress-text.js';
import type { TailStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import { DeliverySink, stopsBeforeEvent } from '../forward/delivery.js';
import { announceForwarding } from '../forward/forwarder.js';
import { type Forwarding, forwardingWords } from '../forward/options.js';
import { summaryText, summaryValue } from '../forward/summary.js';
import { typeFilter } from '../pipeline/filters.js';
import { type ItemSource, Pipeline, type ShownItem, type SourceEntry, type SourceEvent } from '../pipeline/pipeline.js';
import type { MalformedLine } from '../pipeline/recorded-file.js';
import type { StreamNote, StreamStateNote } from '../pipeline/stream-notes.js';
import { type Outage, outageError, outageText } from '../stream/stream-health.js';
import type { StreamEvent } from '../stream/subscription.js';
import { CursorFileWriter } from './cursor-file.js';
import { skippedText, stopLine } from './ending.js';
import type { RunPositions } from './positions.js';
import { RunStatus } from './status.js';
import { RunStops } from './stops.js';
import { RunStreams } from './streams.js';
import { type RunTenants, TenantFailures } from './tenant-failures.js';

/** What a source says besides its events and positions: the run's one vocabulary of notes. */
export type RunNote = StreamNote | StreamStateNote | MalformedLine;

/**
 * What a command hands the run: its source and what only it knows. Everything else — the stops, the filter stage,
 * the sinks, the status, the notices, the summary, the resume line and the exit code — is the run's.
 */
export interface EventsSource<E extends SourceEvent, P, R> {
  /** The pipeline's source, made once the files the user named are open (a failure there sends nothing). */
  open(): ItemSource<E, P, RunNote>;
  /** The stream event an item carries: what is filtered, forwarded and recorded. */
  eventOf(item: E): StreamEvent;
  /** How its items are printed; `R`: what a line for people shows of one. */
  readonly formats: StreamFormats<ShownItem<E>, TailStatus, R>;
  readonly positions: RunPositions<P, E>;
  /** The streams read: a tenant's profile each; '' for a lone tail; none for a recorded file. */
  readonly streams: readonly string[];
  /** Across tenants: how each tenant's failure is worded and reported. */
  readonly tenants?: RunTenants | undefined;
  /** The command in a resume line: `events tail`, `events replay <file>` (then the position, then `keep`). */
  readonly command: readonly string[];
  /** Words of the command that a resume line keeps after the position (`--strict`). */
  readonly keep?: readonly string[] | undefined;
  /** The pasteable line (with `--profiles` across tenants). */
  readonly paste: PasteHint;
  /** A recorded file: its name, and what was read of it for the progress line (`replaying f: 42% · 10 events`). */
  readonly reading?: { readonly path: string; progress(count: number): string } | undefined;
  /** Ends what the source opened (the tenants' services), once the run is over. */
  close?(): void;
}

/** The options of every source. */
export interface RunOptions {
  readonly types: readonly string[];
  readonly forward?: Forwarding | undefined;
  readonly outputFile?: string | undefined;
  readonly cursorFile?: string | undefined;
  readonly maxEvents?: number | undefined;
  readonly durationMs?: number | undefined;
  /** A malformed line of a recorded file stops the run. */
  readonly strict?: boolean | undefined;
}

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
      failure = await this.#close(failure);
    }
    await this.#end(failure);
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
  async #close(failure: unknown): Promise<unknown> {
    const { count, position } = this.#pipeline;
    const label = this.source.positions.label(position, undefined) ?? this.status.now.cursor;
    this.stream.close(this.status.final(this.#reason(failure), count, label));
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

  /** Why the run stopped, for the last status line. */
  #reason(failure: unknown): string | undefined {
    const stops = this.#stops;
    if (stops.quit) return 'q pressed';
    if (stops.interrupted) return stops.signalWords;
    if (failure !== undefined || this.#loneFailure() !== undefined || stops.failFast.signal.aborted) return 'failed';
    if (this.#pipeline.full) return 'reached --max-events';
    const outage = this.#loneOutage();
    if (outage) return `down since ${timestampOf(outage.since)}`;
    return stops.duration.signal.aborted ? 'reached --duration' : undefined;
  }

  /** How the run ended, in the words of its summary and its stop line. */
  #how(stoppedBy: CliError | undefined): string {
    const stops = this.#stops;
    if (stops.interrupted) return stops.signalWords;
    if (stoppedBy) return 'stopped';
    if (stops.quit) return 'q pressed';
    if (this.source.reading) return 'finished';
    return this.#reason(undefined) ?? 'the stream ended';
  }

  /** A lone tail's failure: its one stream's (across tenants each tenant's is its own). */
  #loneFailure(): unknown {
    return this.#failures ? undefined : this.#streams.failure('');
  }

  /** The outage a lone tail ends in (the exit-7 rule), unless it reached --max-events. */
  #loneOutage(): Outage | undefined {
    if (this.#failures || this.#streams.names.length !== 1 || this.#pipeline.full) return undefined;
    return this.#streams.outage('');
  }

  /** Says how the run ended, then ends it with its exit: 0, a signal's, a sink's, the stream's, or the tenants'. */
  async #end(failure: unknown): Promise<void> {
    const stoppedBy = this.#stoppedBy(failure);
    if (failure !== undefined && stoppedBy === undefined && !(failure instanceof Interrupted)) {
      // stdout broke, or what no source expects: said as it is, with where to resume when stdout broke.
      if (failure instanceof OutputError) failure.addHint(`resume with: ${this.#resumeLine()}`);
      throw failure;
    }
    const signalled = this.#stops.interrupted || failure instanceof Interrupted;
    const quit = this.#stops.quit && stoppedBy === undefined;
    this.#tell(signalled || stoppedBy !== undefined || quit, quit, stoppedBy);
    if (signalled) throw interruption(this.inv.ctx.interrupt, true);
    if (stoppedBy) throw stoppedBy;
    if (this.#failures) return this.#endAcrossTenants(this.#failures, quit);
    const lone = this.#loneFailure();
    if (lone !== undefined) throw this.#worded(lone);
    const outage = this.#loneOutage();
    if (quit || outage === undefined) return;
    // Ended by --duration (or the stream's own end) while down: not a success.
    throw outageError(outage).addHint(`resume with: ${this.#resumeLine()}`);
  }

  /**
   * The stop on stderr: with forwarding, the summary (counts per outcome and type; one JSON line for data); else, when
   * stopped, how and after how many events (not for `q`, whose status line says it); then the line to resume with.
   */
  #tell(stopped: boolean, quit: boolean, stoppedBy: CliError | undefined): void {
    const { count } = this.#pipeline;
    const how = this.#how(stoppedBy);
    const skipped = skippedText(this.#malformed);
    const outage = this.#loneOutage();
    const delivery = this.sinks.delivery;
    if (delivery) {
      const end = {
        events: count,
        how: skipped === undefined ? how : `${how} (${skipped})`,
        retrying: delivery.retrying,
        deadLetter: this.opts.forward?.deadLetter,
        resume: stopped || outage !== undefined ? this.#resumeLine() : undefined,
      };
      this.inv.out.aside(summaryValue(delivery.counts, end), summaryText(delivery.counts, end), stopped);
      return;
    }
    const stderr = this.inv.io.stderr;
    if (stopped) {
      const down = outage === undefined || stoppedBy ? undefined : outageText(outage);
      if (!quit)
        stderr.write(
          `${stopLine(
            how,
            count,
            [down, skipped].filter((x) => x !== undefined),
          )}\n`,
        );
      stderr.write(`resume with: ${this.#resumeLine()}\n`);
    } else if (skipped !== undefined) {
      this.inv.io.notice(`svcadm: replayed ${groupedCount(count)} events (${skipped})`);
    }
  }

  /**
   * Across tenants: a tenant that ends while down fails (the exit-7 rule, for it alone); under --fail-fast the
   * tenants cut short are reported as cancelled; the exit is the failures' (cli.md "Many tenants").
   */
  async #endAcrossTenants(failures: TenantFailures, quit: boolean): Promise<void> {
    const failFast = this.#stops.failFast.signal;
    if (failFast.aborted) {
      failures.cancel(this.#streams.running, `stopped by --fail-fast: ${failFast.reason} failed`);
    } else if (!quit) {
      for (const name of this.#streams.names) {
        const outage = this.#pipeline.fullStreams.has(name) ? undefined : this.#streams.outage(name);
        if (outage) failures.fail(name, outageError(outage));
      }
    }
    await failures.written();
    const outcome = failures.outcome();
    if (outcome) throw outcome.addHint(`resume with: ${this.#resumeLine()}`);
  }

  /** A lone tail's failure with what to do: start again from a time (a refused cursor), or resume. */
  #worded(err: unknown): unknown {
    if (!(err instanceof CliError)) return err;
    if (err.reason === 'cursor_expired' || err.reason === 'invalid_cursor') {
      const cursorFrom = this.source.positions.origin?.(this.#pipeline.position) ?? 'the start of the stream';
      err.restart = { words: this.#restartWords(), cursorFrom };
    } else if ((err.kind === 'network' || err.kind === 'rate_limited') && this.#streams.tried('')) {
      // Given up (--max-reconnects): resume after the last batch written.
      err.addHint(`resume with: ${this.#resumeLine()}`);
    }
    return err;
  }

  /** The pasteable command that resumes the run where it settled. */
  #resumeLine(): string {
    const { source } = this;
    const at = source.positions.resumeWords(this.#pipeline.settledPosition);
    const { types, forward, outputFile, cursorFile } = this.opts;
    return source.paste([
      ...source.command,
      ...at,
      ...(types.length > 0 ? ['--type', types.join(',')] : []),
      ...(source.keep ?? []),
      ...forwardingWords(forward),
      ...(outputFile === undefined ? [] : ['--output-file', outputFile]),
      ...(cursorFile === undefined ? [] : ['--cursor-file', cursorFile]),
    ]);
  }

  /** The words a tail started again from a time keeps: where it keeps its cursor, what it shows and where it sends. */
  #restartWords(): string[] {
    const { types, forward, outputFile, cursorFile } = this.opts;
    return [
      ...(cursorFile === undefined ? [] : ['--cursor-file', cursorFile]),
      ...(types.length > 0 ? ['--type', types.join(',')] : []),
      ...forwardingWords(forward),
      ...(outputFile === undefined ? [] : ['--output-file', outputFile]),
    ];
  }
}
