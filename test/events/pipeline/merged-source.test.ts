import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { mergedTenantSource, type TenantSubscription } from '../../../src/events/pipeline/merged-source.js';
import type { TailItem } from '../../../src/events/stream/subscription.js';
import { StreamEvent } from '../../../src/events/stream/subscription.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A tenant that sends nothing until the run stops (a quiet tenant, or one still connecting). */
function quiet(profile: string): TenantSubscription {
  return {
    profile,
    async *batches(signal) {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
}

/** A tenant that sends `count` batches of one event each; `sent` keeps a weak reference to each batch. */
function busy(profile: string, count: number, sent: WeakRef<object>[]): TenantSubscription {
  return {
    profile,
    async *batches() {
      for (let i = 0; i < count; i++) {
        const batch: TailItem[] = [new StreamEvent('user.created', String(i), [Buffer.alloc(1024)])];
        sent.push(new WeakRef(batch));
        yield batch;
      }
    },
  };
}

describe('mergedTenantSource', () => {
  it('keeps no batch the pipeline has taken while another tenant stays quiet (no Promise.race over pending reads)', async () => {
    const sent: WeakRef<object>[] = [];
    const source = mergedTenantSource([quiet('dev'), busy('prod', 2000, sent)], []);
    const stop = new AbortController();
    let events = 0;
    for await (const batch of source.batches(stop.signal)) {
      for (const entry of batch) if (entry.kind === 'event') events++;
      if (events === 2000) break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const alive = sent.filter((ref) => ref.deref() !== undefined).length;
    stop.abort();
    expect(events).toBe(2000);
    expect(alive).toBeLessThan(10);
  });

  it('merges the tenants in the order their batches arrive, each tenant in its own order', async () => {
    const sentA: WeakRef<object>[] = [];
    const sentB: WeakRef<object>[] = [];
    const source = mergedTenantSource([busy('a', 3, sentA), busy('b', 3, sentB)], []);
    const seen: string[] = [];
    for await (const batch of source.batches(new AbortController().signal)) {
      for (const entry of batch) if (entry.kind === 'event') seen.push(`${entry.profile}${entry.event.offset}`);
    }
    expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a0', 'a1', 'a2']);
    expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b0', 'b1', 'b2']);
    expect(seen).toHaveLength(6);
  });
});

describe('mergedTenantSource at a stop', () => {
  it('yields nothing more, though its tenants still have batches ready, and lets them go', async () => {
    let returned = 0;
    const endless = (profile: string): TenantSubscription => ({
      profile,
      batches: () => ({
        [Symbol.asyncIterator]: () => {
          let i = 0;
          return {
            next: async () => ({
              done: false,
              value: [new StreamEvent('user.created', `${profile}${i++}`, [Buffer.from('{}\n')])],
            }),
            return: async () => {
              returned++;
              return { done: true, value: undefined };
            },
          };
        },
      }),
    });
    const stop = new AbortController();
    let events = 0;
    let afterStop = 0;
    for await (const batch of mergedTenantSource([endless('dev'), endless('prod')], []).batches(stop.signal)) {
      if (stop.signal.aborted) afterStop++;
      events += batch.filter((entry) => entry.kind === 'event').length;
      if (events === 10) stop.abort();
      if (events > 1000) break;
    }
    expect([events, afterStop, returned]).toEqual([10, 0, 2]);
  });
});
