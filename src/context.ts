import type { Readable, Writable } from 'node:stream';

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
  /** Milliseconds since the epoch. */
  now(): number;
  /** A number in [0, 1), for retry jitter. */
  random(): number;
  /** Fired on Ctrl-C (SIGINT) or SIGTERM; long-running commands stop cleanly when it aborts. */
  interrupt: AbortSignal;
  platform: NodeJS.Platform;
  homedir: string;
}

export function processContext(interrupt: AbortSignal): Context {
  return {
    io: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
    env: process.env,
    now: () => Date.now(),
    random: Math.random,
    interrupt,
    platform: process.platform,
    homedir: process.env.HOME ?? process.env.USERPROFILE ?? '.',
  };
}
