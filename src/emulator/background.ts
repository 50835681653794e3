import { spawn } from 'node:child_process';
import { childRoleCommand } from '../util/child-role.js';
import type { EmulatorOptions } from './options.js';
import type { EmulatorFixtures } from './seed-data.js';
import type { EmulatorClient } from './tokens.js';

/** Options that cross the process boundary as JSON: no callbacks. */
export type BackgroundOptions = Omit<EmulatorOptions, 'log' | 'now'>;

/** What a running emulator tells its users, in the foreground or in the background. */
export interface EmulatorDescription {
  /** Origin, e.g. `http://127.0.0.1:4010`; the interface is at `<url>/api/v2`. */
  url: string;
  port: number;
  /** Holds every scope of the spec. */
  admin: EmulatorClient;
  /** Holds only the `read:*` scopes. */
  readOnly: EmulatorClient;
  /** The admin client as `SVCADM_*` environment variables. */
  env: { SVCADM_DOMAIN: string; SVCADM_CLIENT_ID: string; SVCADM_CLIENT_SECRET: string };
  fixtures: EmulatorFixtures;
}

/** What a background emulator reports once it listens. */
export interface BackgroundEmulator extends EmulatorDescription {
  pid: number;
}

type StartedInfo = Omit<BackgroundEmulator, 'pid'>;

/** From the child over IPC: ready, or why it could not start (`code` of a system error, `usage` for a bad option). */
type ChildMessage = { ready: StartedInfo } | { failed: { message: string; code: string | undefined; usage: boolean } };

/** Why the background emulator did not start. */
export class BackgroundStartError extends Error {
  constructor(
    message: string,
    /** The system error code (`EADDRINUSE`, …) when there is one. */
    readonly code?: string,
    /** True when an option was refused. */
    readonly usage = false,
  ) {
    super(message);
  }
}

/** How long a child may take to report before it counts as failed (a guard, not a wait for readiness). */
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts an emulator in a detached process (its own session: Ctrl-C in the terminal does not reach it) with no
 * stdio of its own, so a command substitution around the caller ends as soon as the caller does. Resolves when the
 * child listens, after which nothing ties the two processes together. The child is svcadm's `background-emulator`
 * role (src/util/child-role.ts), which calls `serveAsChild`.
 */
export function launchInBackground(
  options: BackgroundOptions,
  { env, signal }: { env: NodeJS.ProcessEnv; signal?: AbortSignal | undefined },
): Promise<BackgroundEmulator> {
  const role = childRoleCommand('background-emulator');
  const child = spawn(role.file, role.args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env,
  });
  return new Promise<BackgroundEmulator>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child.removeAllListeners();
      if (child.connected) child.disconnect();
      child.unref();
      outcome();
    };
    const failWith = (error: BackgroundStartError, kill: boolean) =>
      finish(() => {
        if (kill) child.kill('SIGTERM');
        reject(error);
      });
    const onAbort = () => failWith(new BackgroundStartError('interrupted while the emulator was starting'), true);
    const timer = setTimeout(
      () =>
        failWith(
          new BackgroundStartError(`the emulator did not report ready within ${READY_TIMEOUT_MS / 1000}s`),
          true,
        ),
      READY_TIMEOUT_MS,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => failWith(new BackgroundStartError(`cannot start the emulator: ${err.message}`), false));
    // 'close', not 'exit': it comes after the IPC channel has delivered everything the child sent.
    child.on('close', (code, signalName) =>
      failWith(
        new BackgroundStartError(`the emulator exited (${signalName ?? `code ${code}`}) before it was ready`),
        false,
      ),
    );
    child.on('message', (raw: unknown) => {
      const message = raw as ChildMessage;
      if ('ready' in message) {
        const pid = child.pid;
        if (pid === undefined) return failWith(new BackgroundStartError('the emulator has no process id'), true);
        finish(() => resolve({ pid, ...message.ready }));
      } else if ('failed' in message) {
        const { message: text, code, usage } = message.failed;
        failWith(new BackgroundStartError(text, code, usage), false);
      }
    });
    if (signal?.aborted) onAbort();
    else child.send({ start: options });
  });
}

/** Whether a start failure is about an option (RangeError from the checks) or the address. */
function describeFailure(err: unknown): { message: string; code: string | undefined; usage: boolean } {
  const code = (err as NodeJS.ErrnoException).code;
  return {
    message: err instanceof Error ? err.message : String(err),
    code: typeof code === 'string' ? code : undefined,
    usage: err instanceof RangeError,
  };
}

/**
 * The child's side: waits for its options over IPC, starts the emulator, reports, lets go of the IPC channel and
 * serves until SIGTERM, SIGINT or SIGHUP. If the parent goes away before the child is ready, the child ends too.
 */
export function serveAsChild(
  start: (options: BackgroundOptions) => Promise<StartedInfo & { close(): Promise<void> }>,
): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('the background emulator runs only in a process started by launchInBackground');
  let ready = false;
  process.on('disconnect', () => {
    if (!ready) process.exit(1);
  });
  process.once('message', (raw: unknown) => {
    const options = (raw as { start: BackgroundOptions }).start;
    start(options).then(
      (emulator) => {
        ready = true;
        // What `ps` shows instead of the loader program.
        process.title = `svcadm emulator ${emulator.url}`;
        const stop = () => void emulator.close().then(() => process.exit(0));
        for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(name, stop);
        const { url, port, admin, readOnly, env, fixtures } = emulator;
        send({ ready: { url, port, admin, readOnly, env, fixtures } } satisfies ChildMessage, () =>
          process.disconnect(),
        );
      },
      (err: unknown) => send({ failed: describeFailure(err) } satisfies ChildMessage, () => process.exit(1)),
    );
  });
}
