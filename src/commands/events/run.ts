import { REUSED_AFTER, type StreamEvent, subscribeEvents, type TailItem, timestampOf } from '../../api/events.js';
import { type Outage, StreamHealth } from '../../api/stream-health.js';
import type { Invocation } from '../../cli/host.js';
import type { Clock } from '../../clock.js';
import { CursorFileWriter, readCursorFile } from '../../config/cursor-file.js';
import { CliError, Interrupted, interruption, NetworkError, OutputError, STOP_WORDS } from '../../errors.js';
import { announceForwarding, type Delivery, EventForwarder } from '../../forward/forwarder.js';
import { RecordFile } from '../../io/record-file.js';
import type { ItemStream, StreamFormats } from '../../io/stream-types.js';
import type { EventRow } from '../../render/event-line.js';
import type { TailStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import type { TailOptions } from './options.js';

/** An event as shown: with the status the app acknowledged it with when forwarding. */
interface EventItem {
  readonly event: StreamEvent;
  readonly acknowledged?: Delivery | undefined;
}

/** How an event is printed: its checked NDJSON line, the payload as a value, or event lines for people. */
function eventFormats(clock: Clock, types: readonly string[]): StreamFormats<EventItem, TailStatus, EventRow> {
  return {
    json: (item) => item.event.line,
    value: (item) => item.event.payload(),
    view: async () => {
      const [{ eventLineFormatter, eventRow, typeColumnWidth }, { statusLine }] = await Promise.all([
        import('../../render/event-line.js'),
        import('../../render/tail-view.js'),
      ]);
      const typeWidth = typeColumnWidth(types);
      return {
        row: (item) => eventRow(item.event.payload(), item.acknowledged?.status),
        lines: (color) => eventLineFormatter({ color, typeWidth, now: () => clock.now() }),
        status: statusLine,
        kind: (row) => row.type,
        text: (row) => `${row.type} ${row.id} ${row.summary}`,
      };
    },
  };
}

const RATE_WINDOW_MS = 5000;

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
  let recordFailure: unknown;
  /** Events shown (and recorded) so far. */
  let shown = 0;
  const api = inv.services.api();
  const status: TailStatus = {
    state: 'connecting',
    attempt: 0,
    types: opts.types,
    seen: 0,
    rate: 0,
    cursor: start,
    now: started,
  };
  const samples: Array<[number, number]> = [[started, 0]];
  const stop = new AbortController();
  const timer = opts.durationMs === undefined ? undefined : clock.setTimeout(() => stop.abort(), opts.durationMs);
  if (opts.forward) announceForwarding(inv.out, opts.forward);
  const stream = await inv.out.stream(eventFormats(clock, opts.types), status);
  // `q` in the interactive view stops as --max-events does.
  // A write that fails after it was handed over stops the tail at once (the failure is thrown where it is awaited).
  const writeFailed = new AbortController();
  const signal = AbortSignal.any([
    ctx.interrupt,
    stop.signal,
    writeFailed.signal,
    ...(stream.quit ? [stream.quit] : []),
  ]);
  const refresh = () => {
    const now = clock.now();
    samples.push([now, status.seen]);
    while (samples.length > 2 && (samples[0]?.[0] ?? now) < now - RATE_WINDOW_MS) samples.shift();
    const [t0, n0] = samples[0] ?? [now, 0];
    status.rate = now > t0 ? ((status.seen - n0) * 1000) / (now - t0) : 0;
    status.now = now;
    stream.status({ ...status });
  };
  const ticker = stream.live ? clock.setInterval(refresh, 1000) : undefined;
  let cursor = start;
  let seen = 0;
  let full = false;
  let failure: unknown;
  const health = new StreamHealth(started);
  // Delivered one at a time; the cursor (and the cursor file) moves only past what the app acknowledged.
  const forwarder = opts.forward && new EventForwarder(inv.services.http(), opts.forward, clock, stream.notice);
  let pending: EventItem[] = [];
  let written = cursor;
  /**
   * The batches written whose writes may not have settled yet (at most REUSED_AFTER - 1 between batches): the next
   * batch is read and written meanwhile (a pipe's reader and svcadm then work at once), and the cursor moves past a
   * batch once its write has settled.
   */
  const unsettled: Array<{ settled: Promise<void>; cursor: string | undefined; seen: number }> = [];
  // The cursor file moves only past lines the system took without error (at least once, never skipped).
  const settle = async (keep: number) => {
    while (unsettled.length > keep) {
      const batch = unsettled.shift()!;
      await batch.settled;
      shown = batch.seen;
      if (batch.cursor !== undefined && batch.cursor !== written) cursorFile?.update(batch.cursor);
      written = batch.cursor;
    }
  };
  // What is printed so far, and the cursor past it: after each batch (each acknowledged event in the live view).
  // `last`: and wait until all of it has settled.
  const flush = async (last = false) => {
    status.seen = seen;
    status.cursor = cursor;
    // The status first: the live view draws it under the new lines (and again at most every 100 ms).
    if (stream.live) stream.status({ ...status, now: clock.now() });
    if (pending.length > 0 && record) {
      try {
        record.append(pending.flatMap((item) => item.event.line));
      } catch (err) {
        recordFailure = err;
        throw err;
      }
    }
    let settled: Promise<void> | undefined;
    if (pending.length > 0) {
      await stream.write(pending);
      settled = inv.io.settled();
      // Awaited at the next flush, or at the end when the failure stops the stream.
      settled.catch(() => writeFailed.abort());
    }
    pending = [];
    unsettled.push({ settled: settled ?? Promise.resolve(), cursor, seen });
    // The next batch overwrites the lines of the one REUSED_AFTER back (subscribeEvents' `reuseLines`).
    await settle(last || settled === undefined ? 0 : REUSED_AFTER - 1);
  };
  try {
    const subscription = subscribeEvents({
      api,
      types: opts.types,
      from: start,
      fromTimestamp: opts.fromTimestamp,
      maxReconnects: opts.maxReconnects,
      signal,
      clock,
      random: ctx.random,
      // A batch's write has settled before the batch REUSED_AFTER later is asked for (`flush`); no line is kept.
      reuseLines: true,
      received: (bytes) => inv.out.received(bytes),
    });
    for await (const batch of subscription) {
      for (const item of batch) {
        if (item.kind === 'event') {
          if (forwarder && signal.aborted) break;
          const acknowledged = forwarder ? await forwarder.deliver(item) : undefined;
          if (!forwarder || acknowledged) {
            pending.push({ event: item, acknowledged });
            seen++;
          }
          if (item.offset !== undefined) cursor = item.offset;
          if (forwarder && stream.live) await flush();
          if (opts.maxEvents !== undefined && seen >= opts.maxEvents) {
            full = true;
            break;
          }
        } else if (item.kind === 'cursor') cursor = item.offset;
        else {
          if (item.kind === 'connected') health.connected();
          if (item.kind === 'reconnecting') health.failed(item.reason, clock.now());
          report(item, stream, status, clock.now());
        }
      }
      if (stream.live && batch.some((i) => i.kind !== 'event' && i.kind !== 'cursor')) refresh();
      await flush();
      if (full) break;
    }
    await flush(true);
  } catch (err) {
    failure = err;
    if (isCursorRefusal(err))
      err.restart = { words: restartWords(opts), cursorFrom: cursorOrigin(opts, start, cursor) };
    // A stop while an event was being delivered, or an app that never acknowledged: both end with where to resume.
    if (!(err instanceof Interrupted) && !endsWithResume(err) && err !== recordFailure) {
      const gaveUp = err instanceof CliError && (err.kind === 'network' || err.kind === 'rate_limited') && health.tried;
      if (gaveUp || err instanceof OutputError) {
        // Given up (--max-reconnects), or stdout broke: resume after the last batch written (`written`).
        (err as CliError).addHint(`resume with: ${resumeLine(inv, opts, written, started)}`);
      }
      throw err;
    }
    if (recordFailure !== undefined) {
      // Past a failed record nothing more is shown, and the cursor stays where the record ends.
      await settle(0).catch(() => {});
      cursor = written;
      seen = shown;
    } else if (!isCursorFileFailure(err)) await flush(true);
  } finally {
    timer?.cancel();
    ticker?.cancel();
    const outage = failure === undefined && !full ? health.outage() : undefined;
    const reason = stream.quit?.aborted
      ? 'q pressed'
      : stopReason(ctx.interrupt, failure !== undefined, full, stop.signal.aborted, outage);
    stream.close({ ...status, state: 'stopped', reason, seen, cursor, now: clock.now() });
    try {
      await cursorFile?.flush();
    } catch (err) {
      failure ??= err;
    }
    record?.close();
  }
  // An app that gave up, a cursor file or an output file that could not be written: each stops with where to resume.
  const stoppedBy =
    endsWithResume(failure) || (failure !== undefined && failure === recordFailure) ? failure : undefined;
  const quit = stream.quit?.aborted === true && !ctx.interrupt.aborted && stoppedBy === undefined;
  const outage = health.outage();
  if (!ctx.interrupt.aborted && stoppedBy === undefined && !quit) {
    if (full || outage === undefined) return;
    // Ended by --duration (or the stream's own end) while down: not a success
    // (docs/decisions/2026-11-23-tail-down-exit-7.md).
    throw new NetworkError(`${outageText(outage)}`, { hint: `resume with: ${resumeLine(inv, opts, cursor, started)}` });
  }
  if (!quit) {
    const count = `${seen} ${seen === 1 ? 'event' : 'events'}`;
    const how = stoppedBy ? 'stopped' : STOP_WORDS[interruption(ctx.interrupt).signal];
    const down = outage === undefined || stoppedBy ? '' : ` (${outageText(outage)})`;
    inv.io.stderr.write(`svcadm: ${how} after ${count}${down}\n`);
  }
  inv.io.stderr.write(`resume with: ${resumeLine(inv, opts, cursor, started)}\n`);
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
  const forward = opts.forward ? ['--forward-to', opts.forward.url.href] : [];
  const output = opts.outputFile === undefined ? [] : ['--output-file', opts.outputFile];
  return inv.paste(['events', 'tail', ...resume, ...filters, ...forward, ...output]);
}

/** The words a tail started again from a time keeps: where it keeps its cursor, what it shows and where it sends. */
function restartWords(opts: TailOptions): string[] {
  const file = opts.cursorFile === undefined ? [] : ['--cursor-file', opts.cursorFile];
  const filters = opts.types.length > 0 ? ['--type', opts.types.join(',')] : [];
  const forward = opts.forward ? ['--forward-to', opts.forward.url.href] : [];
  const output = opts.outputFile === undefined ? [] : ['--output-file', opts.outputFile];
  return [...file, ...filters, ...forward, ...output];
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

function isForwardFailure(err: unknown): err is CliError {
  return err instanceof CliError && err.reason === 'forward_failed';
}

function isCursorFileFailure(err: unknown): err is CliError {
  return err instanceof CliError && err.reason === 'cursor_file_failed';
}

/** Failures after which the tail still says where to resume: the app gave up, or the cursor file could not be kept. */
function endsWithResume(err: unknown): err is CliError {
  return isForwardFailure(err) || isCursorFileFailure(err);
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
