import type { Command } from 'commander';
import type { Context } from './context.js';
import type { GlobalOptions } from './global-options.js';
import { Runtime } from './runtime.js';

/** One invocation of svcadm: the injected world and, once a command starts, its runtime. */
export interface Session {
  ctx: Context;
  runtime?: Runtime;
  /** Set by a command that ends without an error but not with 0. */
  exitCode?: number;
}

export function runtimeFor(session: Session, command: Command): Runtime {
  session.runtime = new Runtime(session.ctx, command.optsWithGlobals<GlobalOptions>());
  return session.runtime;
}

/** Wraps a command's run function for commander: builds the runtime from the global options first. */
export function action<Args extends unknown[], Opts>(
  session: Session,
  run: (rt: Runtime, args: Args, opts: Opts, command: Command) => Promise<void>,
): (...raw: unknown[]) => Promise<void> {
  return async (...raw: unknown[]) => {
    const command = raw[raw.length - 1] as Command;
    const opts = raw[raw.length - 2] as Opts;
    const args = raw.slice(0, -2) as Args;
    await run(runtimeFor(session, command), args, opts, command);
  };
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
