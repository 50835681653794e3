import { REUSED_AFTER, type StreamEvent, type TailItem } from '../stream/subscription.js';
import type { ItemSource, SourceEntry } from './pipeline.js';
import type { StreamStateNote } from './stream-notes.js';

/**
 * Where each tenant of a merged tail stands: its cursor, in the order of the tenants (undefined: none yet). An array
 * rather than a record keyed by profile: no profile name (`toString`, `__proto__`) can meet a member of a prototype.
 */
export type TenantCursors = readonly (string | undefined)[];

/** A tenant's event in a merged tail, with where every tenant stands once it is settled. */
export interface TenantEvent {
  readonly kind: 'event';
  readonly profile: string;
  readonly event: StreamEvent;
  readonly position: TenantCursors;
}

/** One tenant's subscription, to be merged. */
export interface TenantSubscription {
  readonly profile: string;
  batches(signal: AbortSignal): AsyncIterable<readonly TailItem[]>;
}

type Pulled = { index: number; result: IteratorResult<readonly TailItem[]> } | { index: number; error: unknown };
type Entry = SourceEntry<TenantEvent, TenantCursors, StreamStateNote>;

/**
 * The tenants' streams merged as their batches arrive (cli.md "Many tenants", `events tail`): a source of the events
 * pipeline. Each tenant's batches stay in their order; a tenant is read on once the pipeline has taken its last
 * batch, so none is ever more than a batch ahead. A tenant whose subscription fails or ends leaves the others
 * running; one the pipeline ends (`--max-events` reached) is read no more. Nothing is read after a stop. The position
 * is every tenant's cursor, so the pipeline moves it (and the cursor file) only past what it settled.
 */
export function mergedTenantSource(
  tenants: readonly TenantSubscription[],
  start: TenantCursors,
): ItemSource<TenantEvent, TenantCursors, StreamStateNote> {
  const ended = new Set<number>();
  return {
    positionOf: (event) => event.position,
    // A tenant's next batch is asked for only once the pipeline has taken its last one, and at most this many merged
    // batches are unsettled then: a tenant's lines from REUSED_AFTER batches back have been written (`reuseLines`).
    unsettledBatches: REUSED_AFTER - 1,
    streams: {
      of: (event) => event.profile,
      end: (profile) => ended.add(tenants.findIndex((t) => t.profile === profile)),
    },
    async *batches(signal) {
      let cursors: TenantCursors = [...start];
      const iterators = tenants.map((tenant) => tenant.batches(signal)[Symbol.asyncIterator]());
      // Each read, once it settles, goes to `ready` and wakes the loop. Not Promise.race over the pending reads: each
      // race adds a reaction to every read still pending, and a quiet tenant's read would keep every race's winner
      // (a batch and its lines) until it settles, 117,000 events of a merged tail at once (docs/bench-log.md).
      const reading = new Set<number>();
      const ready: Pulled[] = [];
      let wake: (() => void) | undefined;
      const pull = (index: number) => {
        reading.add(index);
        iterators[index]!.next()
          .then(
            (result): Pulled => ({ index, result }),
            (error: unknown): Pulled => ({ index, error }),
          )
          .then((pulled) => {
            ready.push(pulled);
            wake?.();
            wake = undefined;
          });
      };
      // A stop wakes the loop too (not a race with a promise of the stop: each race would leave a reaction on it).
      const onStop = () => wake?.();
      signal.addEventListener('abort', onStop, { once: true });
      tenants.forEach((_tenant, index) => {
        pull(index);
      });
      try {
        while (reading.size > 0 && !signal.aborted) {
          if (ready.length === 0) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            continue;
          }
          const pulled = ready.shift() as Pulled;
          const { index } = pulled;
          reading.delete(index);
          const stream = tenants[index]!.profile;
          if ('error' in pulled) {
            yield [{ kind: 'stream-failed', stream, error: pulled.error }];
            continue;
          }
          if (pulled.result.done) {
            yield [{ kind: 'stream-ended', stream }];
            continue;
          }
          const out: Entry[] = [];
          for (const item of pulled.result.value) {
            if (item.kind === 'event') {
              if (item.offset !== undefined) cursors = moved(cursors, index, item.offset);
              out.push({ kind: 'event', profile: stream, event: item, position: cursors });
            } else if (item.kind === 'cursor') {
              cursors = moved(cursors, index, item.offset);
              out.push({ kind: 'cursor', offset: cursors });
            } else out.push({ kind: 'stream-note', stream, note: item });
          }
          yield out;
          // Read on once the pipeline has taken the batch: its notes are seen when they happen (a drop's time).
          if (!ended.has(index)) pull(index);
          else {
            await iterators[index]!.return?.();
            yield [{ kind: 'stream-ended', stream }];
          }
        }
      } finally {
        signal.removeEventListener('abort', onStop);
        // Not awaited: a live stream's pending read ends when the run closes its connections.
        for (const index of reading) iterators[index]!.return?.().catch(() => {});
      }
    },
  };
}

/** The tenants' cursors with `index`'s moved to `offset`. */
function moved(cursors: TenantCursors, index: number, offset: string): TenantCursors {
  const next = cursors.slice();
  next[index] = offset;
  return next;
}
