import type { Invocation } from '../../cli/host.js';
import { Interrupted, interruption, STOP_WORDS, UsageError } from '../../errors.js';
import { DeliverySink, stopsBeforeEvent } from '../../events/forward/delivery.js';
import { announceForwarding } from '../../events/forward/forwarder.js';
import { forwardingWords } from '../../events/forward/options.js';
import { type RunEnd, summaryText, summaryValue } from '../../events/forward/summary.js';
import { type EventItem, eventFormats } from '../../events/pipeline/event-formats.js';
import { Pipeline } from '../../events/pipeline/pipeline.js';
import { type MalformedLine, RecordedFile } from '../../events/pipeline/recorded-file.js';
import type { StreamEvent } from '../../events/stream/subscription.js';
import type { ItemStream } from '../../io/stream-types.js';
import { groupedCount } from '../../render/progress-text.js';
import { startingStatus, type TailStatus } from '../../render/tail-view.js';
import { neutralize } from '../../text/sanitize.js';
import type { ReplayOptions } from './options.js';

/** The progress line is redrawn at most this often. */
const PROGRESS_EVERY_MS = 250;

/**
 * `svcadm events replay <file>`: a recorded file as the source of the events pipeline, through the same filters,
 * formats and forwarding as the tail. A stop says the line to resume with (`--from-line`).
 */
export async function runEventsReplay(inv: Invocation, opts: ReplayOptions): Promise<void> {
  const { ctx } = inv;
  const { clock } = ctx;
  const source = RecordedFile.open(opts.file, opts.fromLine);
  let stream: ItemStream<EventItem, TailStatus> | undefined;
  const progress = inv.io.progress();
  /** A line on stderr, clear of the progress line. */
  const notice = (text: string, always?: boolean) => {
    progress.done();
    stream?.notice(text, always);
  };
  const delivery =
    opts.forward && DeliverySink.open(inv.services.http(), opts.forward, clock, notice, () => showForwarding());
  const status = startingStatus(
    'connected',
    opts.types,
    undefined,
    clock.now(),
    delivery ? delivery.status() : undefined,
  );
  const showForwarding = () => {
    if (!delivery) return;
    status.forward = delivery.status();
    if (stream?.live) stream.status({ ...status, now: clock.now() });
  };
  if (opts.forward) announceForwarding(inv.out, opts.forward.target, (text) => inv.io.warn(text));
  stream = await inv.out.stream(eventFormats(clock, opts.types), status);
  const shown = stream;
  let malformed = 0;
  let lastProgress = Number.NEGATIVE_INFINITY;
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.interrupt, stop.signal, ...(stream.quit ? [stream.quit] : [])]);
  const types = new Set<string>(opts.types);
  const pipeline = new Pipeline<StreamEvent, number, MalformedLine>({
    source,
    accepts: types.size === 0 ? undefined : (event) => types.has(event.type),
    deliver: delivery ? (event) => delivery.settle(event) : undefined,
    prepare: delivery ? (event) => delivery.prepare(event) : undefined,
    printer: shown,
    written: () => inv.io.settled(),
    note: (bad) => {
      const where = `line ${bad.line} of ${neutralize(opts.file)}`;
      if (opts.strict) throw new UsageError(`${where} is not an event: ${neutralize(bad.reason)}`);
      malformed++;
      notice(`svcadm: skipped ${where}: ${neutralize(bad.reason)}`, true);
    },
    afterBatch: () => {
      const now = clock.now();
      if (shown.live || now - lastProgress < PROGRESS_EVERY_MS) return;
      lastProgress = now;
      const percent = source.size > 0 ? Math.floor((source.bytesRead * 100) / source.size) : 100;
      progress.update(`replaying ${neutralize(opts.file)}: ${percent}% · ${groupedCount(pipeline.count)} events`);
    },
    progress: (seen, line) => {
      status.seen = seen;
      status.cursor = line === undefined ? undefined : `line ${line}`;
      if (delivery) status.forward = delivery.status();
      if (shown.live) shown.status({ ...status, now: clock.now() });
    },
    signal,
    writeEachDelivery: shown.live,
    start: opts.fromLine,
  });
  let failure: unknown;
  try {
    await pipeline.run();
  } catch (err) {
    failure = err;
    // A signal, an event the app would not take, a malformed line under --strict: each ends with the resume line.
    if (!(err instanceof Interrupted || err instanceof UsageError || stopsBeforeEvent(err))) throw err;
    await pipeline.finishAfterStop().catch(() => {});
  } finally {
    progress.done();
    shown.close({ ...status, state: 'stopped', seen: pipeline.count, now: clock.now() });
    delivery?.close();
  }
  const stopped = failure !== undefined || ctx.interrupt.aborted;
  const quit = shown.quit?.aborted === true && !ctx.interrupt.aborted && failure === undefined;
  const resume = inv.paste([
    'events',
    'replay',
    opts.file,
    '--from-line',
    String(pipeline.settledPosition ?? opts.fromLine),
    ...(opts.types.length > 0 ? ['--type', opts.types.join(',')] : []),
    ...(opts.strict ? ['--strict'] : []),
    ...forwardingWords(opts.forward),
  ]);
  const how = ctx.interrupt.aborted
    ? STOP_WORDS[interruption(ctx.interrupt).signal]
    : failure !== undefined
      ? 'stopped'
      : quit
        ? 'q pressed'
        : 'finished';
  const skipped = malformed > 0 ? ` (${malformed} malformed ${malformed === 1 ? 'line' : 'lines'} skipped)` : '';
  if (delivery) {
    const end: RunEnd = {
      events: pipeline.count,
      how: `${how}${skipped}`,
      retrying: delivery.retrying,
      deadLetter: opts.forward?.deadLetter,
      resume: stopped || quit ? resume : undefined,
    };
    inv.out.aside(summaryValue(delivery.counts, end), summaryText(delivery.counts, end), stopped);
  } else if (stopped || quit) {
    const count = `${pipeline.count} ${pipeline.count === 1 ? 'event' : 'events'}`;
    inv.io.stderr.write(`svcadm: ${how} after ${count}${skipped}\nresume with: ${resume}\n`);
  } else if (malformed > 0) {
    inv.io.notice(`svcadm: replayed ${groupedCount(pipeline.count)} events${skipped}`);
  }
  // A stop by a signal was told above (count and resume line): the exit code says which signal.
  if (ctx.interrupt.aborted) throw interruption(ctx.interrupt, true);
  if (failure !== undefined) throw failure;
}
