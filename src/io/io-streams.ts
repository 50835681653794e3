import { fstatSync } from 'node:fs';
import type { Env, InStream, Io, OutStream } from '../context.js';
import { Interrupted, OutputError } from '../errors.js';
import type { Globals } from '../global-options.js';
import { neutralize } from '../text/sanitize.js';
import { FdWriter, readiesForFdWriter } from './fd-writer.js';
import { withinGrace } from './output-grace.js';

const WRITE_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EPIPE: 'the reader went away',
  EIO: 'input/output error',
  EBADF: 'it is closed',
  EFBIG: 'the file is too large',
};

/** A failed write to stdout or stderr as the user reads it: the environment's fault, exit 74, never "a bug". */
export function outputError(name: string, err: unknown): OutputError {
  const code = (err as NodeJS.ErrnoException).code;
  const text = code === undefined ? undefined : WRITE_ERRORS[code];
  return new OutputError(
    `cannot write to ${name}: ${text ? `${text} (${code})` : neutralize((err as Error).message ?? String(err))}`,
  );
}

/**
 * Why `stream` can no longer take output, once a write to it has failed. The reader of stdout going away (EPIPE,
 * `svcadm … | head`) is no failure: there is just nobody left to write to.
 */
export function outputFailure(stream: OutStream, name: 'stdout' | 'stderr'): OutputError | undefined {
  const err = stream.errored;
  if (!err || (name === 'stdout' && (err as NodeJS.ErrnoException).code === 'EPIPE')) return undefined;
  return outputError(name, err);
}

/**
 * How much of a stream of items may wait for a slow reader before a write waits too: enough that a pipe's reader
 * and svcadm work at once, little enough that a large output is never held in memory.
 */
export const STREAM_QUEUE_BYTES = 1024 * 1024;

/**
 * Writes, and waits for the stream to take the data, so a large output is never held in memory: at once, or once
 * more than `queueBytes` wait.
 */
export function writeOut(stream: OutStream, text: string | Uint8Array, queueBytes = 0): Promise<void> | undefined {
  if (stream.errored) return Promise.reject(stream.errored);
  if (stream.write(text)) return undefined;
  if (!stream.errored && stream.writableLength <= queueBytes) return undefined;
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => {
      stream.off('drain', onDrain);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    stream.once('drain', onDrain);
    stream.once('error', done);
  });
}

export interface Progress {
  update(text: string): void;
  /** Clears the line; call before anything else is written to stderr. */
  done(): void;
}

const CLEAR_LINE = '\r\x1b[2K';
/** Accessible mode: a progress line at most this often, so that a screen reader is not kept talking. */
export const PLAIN_PROGRESS_MS = 5000;

/** Progress as whole lines that are never redrawn (accessible mode): the first at once, then one every 5 s. */
function plainProgress(stderr: OutStream, now: () => number): Progress {
  let last: number | undefined;
  return {
    update(text) {
      const at = now();
      if (last !== undefined && at - last < PLAIN_PROGRESS_MS) return;
      last = at;
      stderr.write(`${text}\n`);
    },
    done() {},
  };
}
const NO_PROGRESS: Progress = { update() {}, done() {} };

/** Resolves once everything written to `out` so far has been handed to the system; rejects with a failed write's error. */
function streamSettled(out: OutStream): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.errored) return reject(out.errored);
    // Nothing waits in the stream: every write has reached the system (a failed one would have set `errored`).
    if (out.writableLength === 0) return resolve();
    // An empty write's callback comes after those of the writes before it.
    out.write('', (err) => {
      if (err || out.errored) reject(err ?? out.errored);
      else resolve();
    });
  });
}

/**
 * The standard streams of one invocation, as cli/cli's IOStreams: data to stdout (with backpressure), and the
 * chatter on stderr: notices (not with --quiet), warnings (always), the --debug trace and the progress line.
 */
export class IOStreams {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly #io: Io;
  readonly #globals: Globals;
  readonly #env: Env;
  /** Set by the first stream write: null where stdout cannot be written beside (see FdWriter). */
  #fdWriter: FdWriter | null | undefined;
  /** Aborts a while after a stop signal: a wait on stdout then gives up (see outputGrace). */
  readonly #grace: AbortSignal | undefined;

  constructor(io: Io, globals: Globals, env: Env, grace?: AbortSignal) {
    this.stdout = io.stdout;
    this.stderr = io.stderr;
    this.#io = io;
    this.#globals = globals;
    this.#env = env;
    this.#grace = grace;
  }

  /**
   * Whether stdout is the file `file` (the same device and inode): a command that reads a file must not write its
   * output back into it. Only this process's own stdout can be a file; a captured one never is.
   */
  stdoutIs(file: { readonly dev: number; readonly ino: number }): boolean {
    if (this.stdout !== process.stdout) return false;
    try {
      const stats = fstatSync(1);
      return stats.isFile() && stats.dev === file.dev && stats.ino === file.ino;
    } catch {
      return false;
    }
  }

  /** Read only by the commands that take input or ask (see processContext). */
  get stdin(): InStream {
    return this.#io.stdin;
  }

  /** The environment, for decisions on how to show things (the live view: CI). */
  get env(): Env {
    return this.#env;
  }

  get quiet(): boolean {
    return this.#globals.quiet;
  }

  /**
   * Writes data to stdout, waiting when the reader is slow (or more than `queueBytes` wait); a failed write is an
   * OutputError (exit 74). After a stop signal the wait is bounded: a reader that reads nothing is given up on, with
   * the signal's Interrupted.
   */
  async write(text: string | Uint8Array, queueBytes = 0): Promise<void> {
    // A stream's writes (queueBytes) go beside the work where they can, and then every later write too, in order.
    const writer = queueBytes > 0 ? this.#streamWriter() : this.#fdWriter;
    try {
      const wait = writer
        ? writer.write(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, queueBytes)
        : writeOut(this.stdout, text, queueBytes);
      if (wait) await withinGrace(wait, this.#grace);
    } catch (err) {
      if (err instanceof Interrupted) throw err;
      throw outputError('stdout', err);
    }
  }

  #streamWriter(): FdWriter | undefined {
    if (this.#fdWriter === undefined) {
      const out = this.stdout;
      // A failed write fails the stream as its own write would: `errored`, and its 'error' (EPIPE ends quietly).
      this.#fdWriter = readiesForFdWriter(out)
        ? new FdWriter(1, out, streamSettled(out), (err) => out.destroy(err))
        : null;
    }
    return this.#fdWriter ?? undefined;
  }

  /**
   * Resolves once everything written to stdout so far has been handed to the system; a failed write is an
   * OutputError. What a cursor may move past.
   */
  settled(): Promise<void> {
    const done = this.#fdWriter ? this.#fdWriter.settled() : streamSettled(this.stdout);
    return withinGrace(done, this.#grace).catch((err: unknown) => {
      if (err instanceof Interrupted) throw err;
      throw outputError('stdout', err);
    });
  }

  /** Waits for the writes still under way beside the work (see FdWriter): a command has not succeeded before. */
  async finished(): Promise<void> {
    if (this.#fdWriter) await this.settled();
  }

  /** A line on stderr, unless --quiet. */
  notice(message: string): void {
    if (!this.#globals.quiet) this.stderr.write(`${message}\n`);
  }

  /** A warning on stderr, even with --quiet. */
  warn(message: string): void {
    this.stderr.write(`svcadm: warning: ${message}\n`);
  }

  /** A --debug line; undefined without --debug, so callers can skip building the text. */
  get trace(): ((line: string) => void) | undefined {
    if (!this.#globals.debug) return undefined;
    // Reason phrases and header values come from the server as they are: shown escaped, like all service text.
    return (line) => this.stderr.write(`svcadm: debug: ${neutralize(line)}\n`);
  }

  /**
   * Progress is for people: only on a terminal that redraws (not `TERM=dumb`), outside CI, and not with --quiet. In
   * accessible mode, on a terminal, it is a plain line at first and then at most every `PLAIN_PROGRESS_MS` of `now`.
   */
  progress(now?: () => number): Progress {
    if (this.#globals.quiet || this.#env.CI) return NO_PROGRESS;
    if (this.#globals.accessible && this.stderr.isTTY === true && now) return plainProgress(this.stderr, now);
    if (!this.#globals.redraw.stderr) return NO_PROGRESS;
    const stderr = this.stderr;
    let shown = false;
    return {
      update(text) {
        stderr.write(`${CLEAR_LINE}${text}`);
        shown = true;
      },
      done() {
        if (shown) stderr.write(CLEAR_LINE);
        shown = false;
      },
    };
  }
}
