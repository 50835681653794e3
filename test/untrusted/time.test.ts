import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorEnv, emulatorPerTest } from '../helpers/emulator.js';
import { hostileServerPerTest, sse } from '../helpers/hostile-server.js';
import { BIN, runCli } from '../helpers/run-cli.js';

const DAY = 86_400_000;

const hostile = hostileServerPerTest();
const emulator = emulatorPerTest();
afterEach(() => {
  vi.useRealTimers();
});

describe('waits of 2^31 ms and more', () => {
  it('the real clock chains them instead of letting Node fire them at once', async () => {
    vi.useFakeTimers();
    const fired: string[] = [];
    systemClock.setTimeout(() => fired.push('timeout'), 30 * DAY);
    const slept = systemClock.sleep(30 * DAY).then(() => fired.push('sleep'));
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(30 * DAY - 2 ** 31);
    await slept;
    expect(fired).toEqual(['timeout', 'sleep']);
  });

  it('events tail --duration 30d streams instead of stopping at once', async () => {
    const emu = await emulator({ events: 25, eventRate: 200, heartbeatMs: 0 });
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--duration', '30d', '--max-events', '5'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...emulatorEnv(emu) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(5);
  });
});

describe('durations svcadm refuses', () => {
  it.each([
    [['events', 'tail', '--since', '999999999d'], "invalid --since '999999999d': at most 365d"],
    [
      ['events', 'tail', '--duration', '99999999999999999999999d'],
      "invalid --duration '99999999999999999999999d': at most 365d",
    ],
    [['events', 'tail', '--duration', '366d'], "invalid --duration '366d': at most 365d"],
    [
      ['policies', 'get', 'rlp_1', '--timeout', '1e9s'],
      "invalid --timeout '1e9s': expected a duration such as 30s, 15m, 2h or 7d",
    ],
    [['policies', 'get', 'rlp_1', '--timeout', '400d'], "invalid --timeout '400d': at most 365d"],
  ])('%j: exit 2, nothing sent', async (args, message) => {
    const server = await hostile();
    const r = await runCli(args, { env: server.env() });
    expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
    expect(server.requests).toEqual([]);
  });
});

describe("the server's retry:", () => {
  it('is capped at 60 s like Retry-After (9999999999 made svcadm reconnect at once)', async () => {
    const server = await hostile({ api: sse(':connected\nretry: 9999999999\n\n') });
    const clock = new VirtualClock();
    const r = await runCli(['events', 'tail', '--max-reconnects', '2'], { env: server.env(), clock });
    expect(r.code).toBe(7);
    // 60 s, plus 12.5% jitter at random 0.5.
    expect(clock.sleeps).toEqual([67_500, 67_500]);
  });

  it('is never taken below 100 ms: retry: 0 cannot make a reconnect storm', async () => {
    const server = await hostile({ api: sse(':connected\nretry: 0\n\n') });
    const clock = new VirtualClock();
    const r = await runCli(['events', 'tail', '--max-reconnects', '3'], { env: server.env(), clock });
    expect(r.code).toBe(7);
    expect(clock.sleeps).toEqual([113, 225, 450]);
  });
});
