import type { Readable, Writable } from 'node:stream';
import { type Clock, systemClock } from './clock.js';
import type { Tracer } from './traces/tracer.js';

export type OutStream = Writable & { isTTY?: boolean; columns?: number; rows?: number };
export type InStream = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Everything a command may touch in the outside world, injected so that tests can replace it. */
export interface Context {
  io: Io;
  env: Env;
  clock: Clock;
  /** A number in [0, 1), for retry jitter. */
  random(): number;
  /**
   * Aborts on Ctrl-C, SIGTERM or SIGHUP, with the `Interrupted` naming the signal as its reason; long-running commands
   * stop cleanly when it aborts.
   */
  interrupt: AbortSignal;
  /** Where spans go: `NO_TRACER` unless the OTEL_* variables turn traces on (src/main.ts decides, once). */
  tracer?: Tracer;
}

export function processContext(interrupt: AbortSignal): Context {
  return {
    io: {
      stdout: process.stdout,
      stderr: process.stderr,
      // Node creates process.stdin on first read, and creating it makes a piped stdin non-blocking (O_NONBLOCK on a
      // file description other processes may share) for the rest of the run: only commands that read input or ask
      // touch it. Not a start-up trick: creating it at start cost no measurable time (0.5 ms, the noise's size;
      // docs/decisions/2026-11-25-start-up-tricks.md).
      get stdin() {
        return process.stdin;
      },
    },
    env: process.env,
    clock: systemClock,
    random: Math.random,
    interrupt,
  };
}
