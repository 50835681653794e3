import { REUSED_AFTER, type StreamEvent, type TailItem } from '../stream/subscription.js';
import type { ItemSource, SourceEntry } from './pipeline.js';

/** Where each tenant of a merged tail stands: its cursor, by profile. */
export type TenantCursors = Readonly<Record<string, string>>;

/** A tenant's event in a merged tail, with where every tenant stands once it is settled. */
export interface TenantEvent {
  readonly kind: 'event';
  readonly profile: string;
  readonly event: StreamEvent;
  readonly position: TenantCursors;
}

/** What a tenant's subscription says besides events and positions (connected, reconnecting, warnings…). */
export type TailNote = Exclude<TailItem, StreamEvent | { kind: 'cursor' }>;

/** A tenant's note, its subscription's failure (a fatal 403, 410, 401…), or its end. */
export type TenantNote =
  | { readonly kind: 'tenant-note'; readonly profile: string; readonly note: TailNote }
  | { readonly kind: 'tenant-failed'; readonly profile: string; readonly error: unknown }
  /** `full`: it reached its `maxEvents`. */
  | { readonly kind: 'tenant-ended'; readonly profile: string; readonly full: boolean };

/** One tenant's subscription, to be merged. */
export interface TenantSubscription {
  readonly profile: string;
  batches(signal: AbortSignal): AsyncIterable<readonly TailItem[]>;
}

type Pulled = { index: number; result: IteratorResult<readonly TailItem[]> } | { index: number; error: unknown };

/**
 * The tenants' streams merged as their batches arrive (cli.md "Many tenants", `events tail`): a source of the tail's
 * pipeline (`pipeline.ts`). Each tenant's batches stay in their order; a tenant is read on once the pipeline
 * has taken its last batch. A tenant whose subscription fails or ends leaves the others running. The position is every tenant's cursor,
 * so the pipeline moves it (and the cursor file) only past what it settled. `maxEvents` bounds each tenant.
 */
export function mergedTenantSource(
  tenants: readonly TenantSubscription[],
  start: TenantCursors,
  maxEvents: number | undefined,
): ItemSource<TenantEvent, TenantCursors, TenantNote> {
  return {
    positionOf: (event) => event.position,
    // A tenant's next batch is asked for only once the pipeline has taken its last one, and at most this many merged
    // batches are unsettled then: a tenant's lines from REUSED_AFTER batches back have been written (`reuseLines`).
    unsettledBatches: REUSED_AFTER - 1,
    async *batches(signal) {
      let cursors: TenantCursors = { ...start };
      const iterators = tenants.map((tenant) => tenant.batches(signal)[Symbol.asyncIterator]());
      const seen = tenants.map(() => 0);
      // Each read, once it settles, goes to `ready` and wakes the loop. Not Promise.race over the pending reads: each
      // race adds a reaction to every read still pending, and a quiet tenant's read would keep every race's winner
      // (a batch and its lines) until it settles, 117,000 events of a merged tail at once (docs/bench-log.md).
      const reading = new Set<number>();
      const ready: Pulled[] = [];
      let wake: (() => void) | undefined;
      const pull = (index: number) => {
        const iterator = iterators[index];
        if (iterator === undefined) return;
        reading.add(index);
        iterator
          .next()
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
      tenants.forEach((_tenant, index) => {
        pull(index);
      });
      try {
        while (reading.size > 0) {
          if (ready.length === 0) {
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            continue;
          }
          const pulled = ready.shift() as Pulled;
          const { index } = pulled;
          reading.delete(index);
          const profile = tenants[index]?.profile ?? '';
          if ('error' in pulled) {
            yield [{ kind: 'tenant-failed', profile, error: pulled.error }];
            continue;
          }
          if (pulled.result.done) {
            yield [{ kind: 'tenant-ended', profile, full: false }];
            continue;
          }
          const out: SourceEntry<TenantEvent, TenantCursors, TenantNote>[] = [];
          let full = false;
          for (const item of pulled.result.value) {
            if (item.kind === 'event') {
              if (item.offset !== undefined) cursors = { ...cursors, [profile]: item.offset };
              out.push({ kind: 'event', profile, event: item, position: cursors });
              seen[index] = (seen[index] ?? 0) + 1;
              if (maxEvents !== undefined && (seen[index] ?? 0) >= maxEvents) {
                full = true;
                break;
              }
            } else if (item.kind === 'cursor') {
              cursors = { ...cursors, [profile]: item.offset };
              out.push({ kind: 'cursor', offset: cursors });
            } else out.push({ kind: 'tenant-note', profile, note: item });
          }
          if (full) {
            await iterators[index]?.return?.();
            out.push({ kind: 'tenant-ended', profile, full: true });
          }
          yield out;
          // Read on once the pipeline has taken the batch: its notes are seen when they happen (a drop's time), and a
          // tenant is never more than a batch ahead.
          if (!full) pull(index);
        }
      } finally {
        // Not awaited: a live stream's pending read ends when the run closes its connections.
        for (const index of reading) iterators[index]?.return?.().catch(() => {});
      }
    },
  };
}
