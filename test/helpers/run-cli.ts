import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve as resolvePath } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Clock } from '../../src/clock.js';
import type { Context, InStream, OutStream } from '../../src/context.js';
import { run } from '../../src/main.js';
import { VirtualClock } from './clock.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Text fed to stdin (then end of input). */
  stdin?: string;
  /** Pretend these streams are terminals. */
  tty?: { stdout?: boolean; stderr?: boolean; stdin?: boolean };
  columns?: number;
  /** Abort it to simulate Ctrl-C (or with `new Interrupted('SIGTERM')` as the reason, another stop signal). */
  interrupt?: AbortSignal;
  /** Default: a new virtual clock, so retry and reconnect waits cost nothing; pass one to read its `sleeps`. */
  clock?: Clock;
  /** Replaces the stdin stream (e.g. to answer a prompt later). */
  stdinStream?: InStream;
  /** Replaces the captured stdout (e.g. one whose writes fail); `stdout` in the result is then empty. */
  stdout?: OutStream;
  /** Called with stdout chunks as they are written. */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
}

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'svcadm-test-'));
}

/** A profile as the profile store holds it (its secret in the 0600 file). */
export interface ProfileSpec {
  domain: string;
  clientId: string;
  clientSecret: string;
}

/** A new config folder holding these profiles: for runs across tenants (`--profiles`). */
export function configWithProfiles(profiles: Record<string, ProfileSpec>): string {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return dir;
}

/** svcadm's environment for a tenant at `domain` reached with a given access token, in a new empty config folder. */
export function givenTokenEnv(domain: string, token = 't'): Record<string, string> {
  return { SVCADM_DOMAIN: domain, SVCADM_TOKEN: token, SVCADM_CONFIG_DIR: tempConfigDir() };
}

function capture(isTTY: boolean, columns: number | undefined, onChunk?: (chunk: string) => void) {
  const stream = new PassThrough() as PassThrough & OutStream;
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => {
    const text = c.toString('utf8');
    chunks.push(text);
    onChunk?.(text);
  });
  if (isTTY) {
    stream.isTTY = true;
    stream.columns = columns ?? 120;
  }
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs svcadm in this process with captured streams: the same `run` the binary calls, over real HTTP, on virtual
 * time unless a clock is given.
 * SVCADM_CONFIG_DIR defaults to a fresh temporary folder; pass `env` to point elsewhere.
 */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  const out = capture(options.tty?.stdout === true, options.columns, options.onStdout);
  const err = capture(options.tty?.stderr === true, options.columns, options.onStderr);
  let stdin: InStream;
  if (options.stdinStream) stdin = options.stdinStream;
  else {
    const input = new PassThrough() as PassThrough & InStream;
    input.end(options.stdin ?? '');
    stdin = input;
  }
  if (options.tty?.stdin) stdin.isTTY = true;
  const ctx: Context = {
    io: { stdout: options.stdout ?? out.stream, stderr: err.stream, stdin },
    env: { SVCADM_CONFIG_DIR: tempConfigDir(), ...options.env },
    clock: options.clock ?? new VirtualClock(),
    random: () => 0.5,
    interrupt: options.interrupt ?? new AbortController().signal,
  };
  const code = await run(argv, ctx);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'svcadm.js');

/**
 * The single executable under test (`SVCADM_TEST_EXECUTABLE=<path>`, built by scripts/release/executable.js), or
 * undefined: then `runBin` runs the npm package's launcher under the Node running the tests.
 */
export const EXECUTABLE = process.env.SVCADM_TEST_EXECUTABLE
  ? resolvePath(process.env.SVCADM_TEST_EXECUTABLE)
  : undefined;

/** PATH without the folders that hold a `node`: what the executable runs with, as on a machine without Node. */
export function pathWithoutNode(path = process.env.PATH ?? ''): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'node')))
    .join(delimiter);
}

/** How `svcadm argv…` is started: the executable (with no `node` on PATH) or `node bin/svcadm.js`. */
export function svcadmCommand(argv: readonly string[]): { file: string; args: string[]; path: string | undefined } {
  if (EXECUTABLE !== undefined) return { file: EXECUTABLE, args: [...argv], path: pathWithoutNode() };
  return { file: process.execPath, args: [BIN, ...argv], path: process.env.PATH };
}

/** Spawns the built binary (run `npm run build` first; `npm test` does), or the executable under test. */
export function runBin(
  argv: string[],
  env: Record<string, string | undefined> = {},
  stdin?: string,
): Promise<CliResult> {
  const command = svcadmCommand(argv);
  return new Promise((resolve) => {
    const child = execFile(
      command.file,
      command.args,
      { env: { PATH: command.path, HOME: process.env.HOME, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // A child that exits before reading its input (a refused option) closes the pipe: EPIPE is no failure of the test.
    child.stdin?.on('error', () => {});
    child.stdin?.end(stdin ?? '');
  });
}
