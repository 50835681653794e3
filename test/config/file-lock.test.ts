import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/config/file-lock.js';
import { VirtualClock } from '../helpers/clock.js';

const RULES = { name: 'the test lock', pollMs: 50, waitMs: 10_000, staleMs: 60_000 };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function lockPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-lock-'));
  dirs.push(dir);
  return join(dir, 'test.lock');
}

describe('acquireLock', () => {
  it('removes a lock left over only while it is the one it judged: one another process took meanwhile stays', async () => {
    const path = lockPath();
    const clock = new VirtualClock();
    // Left over: older than staleMs.
    writeFileSync(path, `424242 ${hostname()} ${clock.now() - 120_000}\n`);
    // A live holder (this process) that took the lock between the judgement and the removal.
    const other = `${process.pid} ${hostname()} ${clock.now()}`;
    const log: string[] = [];
    const outcome = await acquireLock(
      path,
      {
        clock,
        // Called between the judgement and the removal.
        trace: (line) => {
          log.push(line);
          unlinkSync(path);
          writeFileSync(path, `${other}\n`);
        },
        sleep: async (ms) => {
          const holder = readFileSync(path, 'utf8').trim() === other ? 'the other holder' : 'another';
          log.push(`waited ${ms} ms for ${holder}`);
          // The other holder is done.
          unlinkSync(path);
          clock.advance(ms);
        },
      },
      RULES,
    );
    expect(outcome.kind).toBe('held');
    expect(log).toEqual(['removing the test lock left over by process 424242', 'waited 50 ms for the other holder']);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid} ${hostname()} ${clock.now()}\n`);
  });

  it('removes a lock left over that is still there, without waiting', async () => {
    const path = lockPath();
    const clock = new VirtualClock();
    writeFileSync(path, `424242 ${hostname()} ${clock.now() - 120_000}\n`);
    const waits: number[] = [];
    const outcome = await acquireLock(path, { clock, sleep: async (ms) => void waits.push(ms) }, RULES);
    expect(outcome.kind).toBe('held');
    expect(waits).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid} ${hostname()} ${clock.now()}\n`);
  });
});
