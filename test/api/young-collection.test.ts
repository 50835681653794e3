import { constants, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { collectAfterBytes } from '../../src/util/young-generation.js';

/** Minor collections asked for (forced, not V8's own) while `act` runs, and a moment after. */
async function minorCollections(act: () => void): Promise<number> {
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: unknown }).detail as { kind?: number; flags?: number } | undefined;
      const forced = ((detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
      if (forced && detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) seen++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  act();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return seen;
}

describe('the tail’s young-generation collections', () => {
  it('collects once each time the bytes received reach the step, and not before', async () => {
    const received = collectAfterBytes(1000);
    expect(await minorCollections(() => received(999))).toBe(0);
    expect(await minorCollections(() => received(1))).toBe(1);
    expect(await minorCollections(() => [600, 600, 600, 600].forEach(received))).toBe(2);
  });
});
