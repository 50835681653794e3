import type { Invocation } from '../../cli/host.js';
import { eventFormats } from '../../events/pipeline/event-formats.js';
import { tailSource } from '../../events/pipeline/tail-source.js';
import { LoneTailPositions } from '../../events/run/positions.js';
import { runEvents } from '../../events/run/run.js';
import { SLOW_READER_RUN_BYTES } from '../../events/stream/subscription.js';
import type { TailOptions } from './options.js';

export { runEventsTailAcross } from './merged-tail.js';
export { runEventsReplay } from './replay.js';

/** `svcadm events tail` against one tenant: its subscription, handed to the events run. */
export async function runEventsTail(inv: Invocation, opts: TailOptions): Promise<void> {
  const { clock, random } = inv.ctx;
  const positions = LoneTailPositions.open(opts, clock.now());
  const forwarding = opts.forward !== undefined;
  await runEvents(
    inv,
    {
      open: () =>
        tailSource({
          api: inv.services.api(),
          types: opts.types,
          from: positions.stream.cursor,
          fromTimestamp: positions.stream.since,
          maxReconnects: opts.maxReconnects,
          clock,
          random,
          reuseLines: true,
          // While it forwards, one event at a time, the pipeline takes a socket read at a time, and what waits for it
          // is copied into two areas used in turn (chunk-runs.ts). A tail that only writes keeps up: no copy.
          reuseChunks: forwarding,
          runMaxBytes: forwarding ? SLOW_READER_RUN_BYTES : undefined,
          received: (bytes) => inv.out.received(bytes),
          tracer: inv.ctx.tracer,
        }),
      eventOf: (event) => event,
      formats: eventFormats(clock, opts.types),
      positions,
      streams: [''],
      command: ['events', 'tail'],
      paste: inv.paste,
    },
    opts,
  );
}
