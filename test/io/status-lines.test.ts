import { describe, expect, it } from 'vitest';
import { STATUS_LINE_MS, statusLines } from '../../src/io/status-lines.js';
import type { StreamView } from '../../src/io/stream-types.js';
import { statusLine, type TailStatus } from '../../src/render/tail-view.js';

describe('status lines (accessible mode)', () => {
  it('say the status in words when the state changes, else at most every 30 s, and always the last', async () => {
    let now = 0;
    const said: string[] = [];
    const view = async () => ({ status: statusLine }) as unknown as StreamView<unknown, TailStatus, unknown>;
    const lines = await statusLines(view, (line) => said.push(line), { now: () => now });
    const status = (s: Partial<TailStatus>): TailStatus => ({
      state: 'connected',
      attempt: 0,
      types: [],
      seen: 0,
      rate: 0,
      cursor: undefined,
      now,
      ...s,
    });
    lines.update(status({ state: 'connecting' }));
    now = 100;
    lines.update(status({ seen: 0 }));
    now = 10_000;
    lines.update(status({ seen: 40, rate: 4, cursor: 'c40' }));
    now = 100 + STATUS_LINE_MS;
    lines.update(status({ seen: 90, rate: 3, cursor: 'c90' }));
    now += 1000;
    lines.update(status({ state: 'reconnecting', attempt: 1, reconnectAt: now + 2000, reason: 'reset', seen: 90 }));
    now += 1000;
    lines.update(status({ state: 'reconnecting', attempt: 1, reconnectAt: now + 1000, reason: 'reset', seen: 90 }));
    lines.final(status({ state: 'stopped', reason: 'interrupted', seen: 90, cursor: 'c90' }));
    expect(said).toEqual([
      'connecting, 0 events, 0.0/s, all types, cursor -',
      'connected, 0 events, 0.0/s, all types, cursor -',
      'connected, 90 events, 3.0/s, all types, cursor c90',
      'reconnecting in 2s (attempt 1): reset, 90 events, 0.0/s, all types, cursor -',
      'stopped: interrupted, 90 events, all types, cursor c90',
    ]);
  });
});
