import type { Invocation } from '../../cli/host.js';
import { CliError, Interrupted, interruption, OutputError, STOP_WORDS } from '../../errors.js';
import { DeliverySink, stopsBeforeEvent } from '../../events/forward/delivery.js';
import { announceForwarding } from '../../events/forward/forwarder.js';
import { forwardingWords } from '../../events/forward/options.js';
import { type RunEnd, summaryText, summaryValue } from '../../events/forward/summary.js';
import { type EventItem, eventFormats } from '../../events/pipeline/event-formats.js';
import { type ItemSource, Pipeline } from '../../events/pipeline/pipeline.js';
import { CursorFileWriter, readCursorFile } from '../../events/run/cursor-file.js';
import { TailStops } from '../../events/run/stops.js';
import { type Outage, outageError, StreamHealth } from '../../events/stream/stream-health.js';
import {
  REUSED_AFTER,
  SLOW_READER_RUN_BYTES,
  type StreamEvent,
  subscribeEvents,
  type TailItem,
  timestampOf,
} from '../../events/stream/subscription.js';
import { RecordFile } from '../../io/record-file.js';
import type { ItemStream } from '../../io/stream-types.js';
import { startingStatus, type TailStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import type { TailOptions } from './options.js';

export { runEventsTailAcross } from './merged-tail.js';

const RATE_WINDOW_MS = 5000;

export { runEventsReplay } from './replay.js';

/** The tail's notes: what happened on the subscription besides events and positions. */
type TailNote = Exclude<TailItem, StreamEvent | { kind: 'cursor' }>;

/** Runs the tail until it is stopped; a stop by a signal (or an app that gave up) ends with how to resume. */
export async function runEventsTail(inv: Invocation, opts: TailOptions): Promise<void> {
  const { ctx } = inv;
  const { clock } = ctx;
  const started = clock.now();
  const start =
    opts.from ?? (opts.fromTimestamp === undefined && opts.cursorFile ? readCursorFile(opts.cursorFile) : undefined);
  const cursorFile = opts.cursorFile ? new CursorFileWriter(opts.cursorFile, clock) : undefined;
  cursorFile?.check();
  const record = opts.outputFile === undefined ? undefined : RecordFile.open(opts.outputFile);
  let stream: ItemStream<EventItem, TailStatus> | undefined;
  // Delivered one at a time; the cursor (and the cursor file) moves only past what the app acknowledged or what was
  // set aside in the dead letters (opened here: a file that cannot be used is exit 2, nothing sent).
  const delivery =
    opts.forward &&
    DeliverySink.open(
      inv.services.http(),
      opts.forward,
      clock,
      (text, always) => stream?.notice(text, always),
      () => showForwarding(),
    );
  const api = inv.services.api();
  const status = startingStatus('connecting', opts.types, start, started, delivery?.status());
  /** The forwarding counts into the status (and the live view's status line at once). */
  const showForwarding = () => {
    if (!delivery) return;
    status.forward = delivery.status();
    if (stream?.live) stream.status({ ...status, now: clock.now() });
  };
  const samples: Array<[number, number]> = [[started, 0]];
  const stops = new TailStops(ctx.interrupt, clock, opts.durationMs);
  if (opts.forward) announceForwarding(inv.out, opts.forward.target, (text) => inv.io.warn(text));
  stream = await inv.out.stream(eventFormats(clock, opts.types), status);
  const shown = stream;
  const refresh = () => {
    const now = clock.now();
    samples.push([now, status.seen]);
    while (samples.length > 2 && (samples[0]?.[0] ?? now) < now - RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    status.rate = now > t0 ? ((status.seen - n0) * 1000) / (now - t0) : 0;
    status.now = now;
    shown.status({ ...status });
  };
  const ticker = stream.live ? clock.setInterval(refresh, 1000) : undefined;
  let failure: unknown;
  const health = new StreamHealth(started);
  const signal = stops.signal(stream.quit);
  const source: ItemSource<StreamEvent, string, TailNote> = {
    batches: (signal) =>
      subscribeEvents({
        api,
        types: opts.types,
        from: start,
        fromTimestamp: opts.fromTimestamp,
        maxReconnects: opts.maxReconnects,
        signal,
        clock,
        random: ctx.random,
        // A batch's write has settled before the batch REUSED_AFTER later is asked for (the pipeline); no line is kept.
        reuseLines: true,
        // While it forwards, one event at a time, the pipeline takes a socket read at a time, and what waits for it
        // is copied into two areas used in turn (chunk-runs.ts). A tail that only writes keeps up: no copy.
        reuseChunks: delivery !== undefined,
        runMaxBytes: delivery ? SLOW_READER_RUN_BYTES : undefined,
        received: (bytes) => inv.out.received(bytes),
      }),
    positionOf: (event) => event.offset,
    unsettledBatches: REUSED_AFTER - 1,
  };
  const pipeline = new Pipeline<StreamEvent, string, TailNote>({
    source,
    deliver: delivery ? (event) => delivery.settle(event) : undefined,
    prepare: delivery ? (event) => delivery.prepare(event) : undefined,
    record: record && { sink: record, lines: (event) => event.line },
    printer: stream,
    written: () => inv.io.settled(),
    // The cursor file moves only past lines the system took without error (at least once, never skipped).
    settledTo: (cursor) => cursorFile?.update(cursor),
    note: (item) => {
      if (item.kind === 'connected') health.connected();
      if (item.kind === 'reconnecting') health.failed(item.reason, clock.now(), item);
      report(item, shown, status, clock.now());
    },
    afterBatch: (batch) => {
      if (stream.live && batch.some((i) => i.kind !== 'event' && i.kind !== 'cursor')) refresh();
    },
    // The status first: the live view draws it under the new lines (and again at most every 100 ms).
    progress: (seen, cursor) => {
      status.seen = seen;
      status.cursor = cursor;
      if (delivery) status.forward = delivery.status();
      if (stream.live) stream.status({ ...status, now: clock.now() });
    },
    maxItems: opts.maxEvents,
    signal,
    writeEachDelivery: stream.live,
    start,
  });
  stops.follow(pipeline.writeFailed.signal);
  try {
    await pipeline.run();
  } catch (err) {
    failure = err;
    if (isCursorRefusal(err))
      err.restart = { words: restartWords(opts), cursorFrom: cursorOrigin(opts, start, pipeline.position) };
    // A stop while an event was being delivered, or an app that never acknowledged: both end with where to resume.
    if (!(err instanceof Interrupted) && !endsWithResume(err) && err !== pipeline.recordFailure) {
      const gaveUp = err instanceof CliError && (err.kind === 'network' || err.kind === 'rate_limited') && health.tried;
      if (gaveUp || err instanceof OutputError) {
        // Given up (--max-reconnects), or stdout broke: resume after the last batch written.
        (err as CliError).addHint(`resume with: ${resumeLine(inv, opts, pipeline.settledPosition, started)}`);
      }
      throw err;
    }
    if (pipeline.recordFailure !== undefined || !isCursorFileFailure(err)) await pipeline.finishAfterStop();
  } finally {
    stops.end();
    ticker?.cancel();
    const { full } = pipeline;
    const outage = failure === undefined && !full ? health.outage() : undefined;
    const reason = stream.quit?.aborted
      ? 'q pressed'
      : stopReason(ctx.interrupt, failure !== undefined, full, stops.duration.signal.aborted, outage);
    const { count: seen, position: cursor } = pipeline;
    stream.close({ ...status, state: 'stopped', reason, seen, cursor, now: clock.now() });
    try {
      await cursorFile?.flush();
    } catch (err) {
      failure ??= err;
    }
    record?.close();
    delivery?.close();
  }
  const { full, count: seen, position: cursor, recordFailure } = pipeline;
  // An app that gave up, a cursor file or an output file that could not be written: each stops with where to resume.
  const stoppedBy =
    endsWithResume(failure) || (failure !== undefined && failure === recordFailure) ? failure : undefined;
  const quit = stream.quit?.aborted === true && !ctx.interrupt.aborted && stoppedBy === undefined;
  const outage = health.outage();
  const resume = () => resumeLine(inv, opts, cursor, started);
  const stopped = ctx.interrupt.aborted || stoppedBy !== undefined || quit;
  if (delivery) {
    // With forwarding, the stop line is a summary (counts per outcome and per type), one JSON line for data.
    const how = stopped
      ? quit
        ? 'q pressed'
        : stoppedBy
          ? 'stopped'
          : STOP_WORDS[interruption(ctx.interrupt).signal]
      : (stopReason(ctx.interrupt, false, full, stops.duration.signal.aborted, outage) ?? 'the stream ended');
    const end: RunEnd = {
      events: seen,
      how,
      retrying: delivery.retrying,
      deadLetter: opts.forward?.deadLetter,
      resume: stopped || (!full && outage !== undefined) ? resume() : undefined,
    };
    inv.out.aside(summaryValue(delivery.counts, end), summaryText(delivery.counts, end), stopped);
  }
  if (!stopped) {
    if (full || outage === undefined) return;
    // Ended by --duration (or the stream's own end) while down: not a success
    // (docs/decisions/2026-11-23-tail-down-exit-7.md).
    throw outageError(outage).addHint(`resume with: ${resume()}`);
  }
  if (!delivery) {
    if (!quit) {
      const count = `${seen} ${seen === 1 ? 'event' : 'events'}`;
      const how = stoppedBy ? 'stopped' : STOP_WORDS[interruption(ctx.interrupt).signal];
      const down = outage === undefined || stoppedBy ? '' : ` (${outageText(outage)})`;
      inv.io.stderr.write(`svcadm: ${how} after ${count}${down}\n`);
    }
    inv.io.stderr.write(`resume with: ${resume()}\n`);
  }
  if (quit) return;
  throw stoppedBy ?? interruption(ctx.interrupt, true);
}

/** One line: since when the stream has been down, and the last failure. */
function outageText(outage: Outage): string {
  const since = timestampOf(outage.since);
  const never = outage.neverConnected ? ', never connected' : '';
  return `the event stream has been down since ${since}${never}: ${neutralize(outage.reason)}`;
}

/** The pasteable command that resumes this tail where it stopped. */
function resumeLine(inv: Invocation, opts: TailOptions, cursor: string | undefined, started: number): string {
  const resume = cursor !== undefined ? ['--from', cursor] : ['--since', opts.fromTimestamp ?? timestampOf(started)];
  const filters = opts.types.length > 0 ? ['--type', opts.types.join(',')] : [];
  const output = opts.outputFile === undefined ? [] : ['--output-file', opts.outputFile];
  return inv.paste(['events', 'tail', ...resume, ...filters, ...forwardingWords(opts.forward), ...output]);
}

/** The words a tail started again from a time keeps: where it keeps its cursor, what it shows and where it sends. */
function restartWords(opts: TailOptions): string[] {
  const file = opts.cursorFile === undefined ? [] : ['--cursor-file', opts.cursorFile];
  const filters = opts.types.length > 0 ? ['--type', opts.types.join(',')] : [];
  const output = opts.outputFile === undefined ? [] : ['--output-file', opts.outputFile];
  return [...file, ...filters, ...forwardingWords(opts.forward), ...output];
}

/** Where the cursor the service refused came from: the line, the cursor file, or this tail's own stream. */
function cursorOrigin(opts: TailOptions, start: string | undefined, cursor: string | undefined): string {
  if (cursor !== start) return "this tail's own stream (the last position it reached)";
  // The same order as the tail's start: --from, else --since, else the cursor file.
  if (opts.from !== undefined) return '--from';
  if (opts.fromTimestamp !== undefined) return '--since';
  return opts.cursorFile === undefined ? 'the start of the stream' : `the cursor file ${opts.cursorFile}`;
}

function isCursorRefusal(err: unknown): err is CliError {
  return err instanceof CliError && (err.reason === 'cursor_expired' || err.reason === 'invalid_cursor');
}

function isCursorFileFailure(err: unknown): err is CliError {
  return err instanceof CliError && err.reason === 'cursor_file_failed';
}

/** Failures after which the tail still says where to resume: the app gave up, or the cursor file could not be kept. */
function endsWithResume(err: unknown): err is CliError {
  return stopsBeforeEvent(err) || isCursorFileFailure(err);
}

/** Why the tail stopped, for the live view's last status line: what the final stderr line says. */
function stopReason(
  interrupt: AbortSignal,
  failed: boolean,
  full: boolean,
  timeUp: boolean,
  outage: Outage | undefined,
): string | undefined {
  if (interrupt.aborted) return STOP_WORDS[interruption(interrupt).signal];
  if (failed) return 'failed';
  if (full) return 'reached --max-events';
  if (outage) return `down since ${timestampOf(outage.since)}`;
  return timeUp ? 'reached --duration' : undefined;
}

function report(
  item: Exclude<TailItem, StreamEvent | { kind: 'cursor' }>,
  stream: ItemStream<EventItem, TailStatus>,
  status: TailStatus,
  now: number,
): void {
  switch (item.kind) {
    case 'connected':
      status.state = 'connected';
      status.attempt = 0;
      status.reconnectAt = undefined;
      status.reason = undefined;
      return;
    case 'reconnecting':
      status.state = 'reconnecting';
      status.attempt = item.attempt;
      status.reconnectAt = now + item.waitMs;
      status.reason = item.reason;
      status.now = now;
      if (!stream.live) {
        stream.notice(
          `svcadm: ${neutralize(item.reason)}; reconnecting in ${(item.waitMs / 1000).toFixed(1)}s (attempt ${item.attempt})`,
        );
      }
      return;
    case 'stream-error':
      if (!item.fatal) {
        stream.notice(
          `svcadm: the service reported a stream error (${neutralize(item.code)}): ${neutralize(item.message)}`,
          true,
        );
      }
      return;
    case 'warning':
      stream.notice(`svcadm: warning: ${neutralize(item.message)}`, true);
      return;
  }
}
