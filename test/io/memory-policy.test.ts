import { constants, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { collectAfterBytes, FULL_COLLECTION_BYTES, spooledListText } from '../../src/io/memory-policy.js';
import { withFileEmulator } from '../helpers/emulator.js';

/** Collections of `kind` asked for (forced, not V8's own) while `act` runs, and a moment after. */
async function forcedCollections(kind: number, act: () => void): Promise<number> {
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as { detail?: unknown }).detail as { kind?: number; flags?: number } | undefined;
      const forced = ((detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0;
      if (forced && detail?.kind === kind) seen++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  act();
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return seen;
}

const minorCollections = (act: () => void) => forcedCollections(constants.NODE_PERFORMANCE_GC_MINOR, act);
const fullCollections = (act: () => void) => forcedCollections(constants.NODE_PERFORMANCE_GC_MAJOR, act);

describe('the tail’s young-generation collections', () => {
  it('collects once each time the bytes received reach the step, and not before', async () => {
    const received = collectAfterBytes(1000);
    expect(await minorCollections(() => received(999))).toBe(0);
    expect(await minorCollections(() => received(1))).toBe(1);
    expect(await minorCollections(() => [600, 600, 600, 600].forEach(received))).toBe(2);
  });
});

describe('the full collections of lists spooled across tenants', () => {
  it('collects the whole heap each time the text spooled by all tenants together reaches the step', async () => {
    const step = FULL_COLLECTION_BYTES;
    expect(await fullCollections(() => spooledListText(step - 1))).toBe(0);
    expect(await fullCollections(() => spooledListText(1))).toBe(1);
    expect(await fullCollections(() => [step / 2, step / 2, step / 2, step / 2].forEach(spooledListText))).toBe(2);
  });
});

describe('the memory policy is the Printer’s, whatever the command', () => {
  let env: Record<string, string>;
  let userId: string;
  withFileEmulator((each) => {
    env = each.env;
    userId = each.emu.fixtures.userId;
  });

  /** Runs `argv` in a fresh copy of svcadm's modules, and says which V8 settings that run applied. */
  async function settingsOf(argv: string[]): Promise<readonly string[]> {
    vi.resetModules();
    const { runCli } = await import('../helpers/run-cli.js');
    const { appliedMemorySettings } = await import('../../src/io/memory-policy.js');
    const r = await runCli(argv, { env });
    expect(r.code).toBe(0);
    return appliedMemorySettings();
  }

  const YOUNG = '--semi-space-growth-factor=1';

  it('leaves a one-shot command as V8 starts it', async () => {
    expect(await settingsOf(['policies', 'list', '-o', 'json'])).toEqual([]);
    expect(await settingsOf(['provisionings', 'list', '-o', 'json'])).toEqual([]);
  });

  it('keeps the young generation small for every --all, in every format', async () => {
    expect(await settingsOf(['policies', 'list', '--all', '-o', 'json'])).toEqual([YOUNG]);
    expect(await settingsOf(['connections', 'list', '--all', '-o', 'ndjson'])).toEqual([YOUNG]);
    expect(await settingsOf(['provisionings', 'list', '--all', '-o', 'yaml'])).toEqual([YOUNG]);
    expect(await settingsOf(['users', 'permissions', userId, '--all', '-o', 'table'])).toEqual([YOUNG]);
    expect(await settingsOf(['api', '/connections', '--paginate', '-o', 'json'])).toEqual([YOUNG]);
  });

  it('keeps it small for a stream too', async () => {
    expect(await settingsOf(['events', 'tail', '--max-events', '3', '-o', 'ndjson'])).toEqual([YOUNG]);
  });
});
