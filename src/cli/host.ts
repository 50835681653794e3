import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Globals } from '../global-options.js';
import { IOStreams } from '../io/io-streams.js';
import { Printer } from '../io/printer.js';
import type { Redactor } from '../io/redaction.js';
import { Services } from '../services.js';
import { refineError } from './hints.js';
import { type PasteHint, pasteHint, pinnedOptions } from './paste.js';

/** What a command's run function works with: the world, the global options, output and the service. */
export interface Invocation {
  readonly ctx: Context;
  readonly globals: Globals;
  readonly io: IOStreams;
  readonly out: Printer;
  readonly services: Services;
  /** A command line for the user to paste, carrying the options that chose this run's tenant and output. */
  readonly paste: PasteHint;
}

/** Given to every command module at registration: turns its run function into a commander action. */
export class Host {
  constructor(
    readonly ctx: Context,
    /** The global options, parsed before the command runs. */
    private readonly globals: () => Globals,
    /** The secrets stderr is scrubbed of; the services add the ones they learn. */
    private readonly secrets: Redactor,
  ) {}

  action<Args extends unknown[], Opts>(
    run: (inv: Invocation, args: Args, opts: Opts, command: Command) => Promise<void>,
  ): (...raw: unknown[]) => Promise<void> {
    return async (...raw: unknown[]) => {
      const command = raw[raw.length - 1] as Command;
      const opts = raw[raw.length - 2] as Opts;
      const args = raw.slice(0, -2) as Args;
      const { ctx } = this;
      const globals = this.globals();
      const io = new IOStreams(ctx.io, globals, ctx.env);
      const services = new Services(ctx, globals, io, this.secrets);
      // Pinned when a line is made, by then the credentials (and the profile they came from) are known.
      const paste: PasteHint = (words) => pasteHint(pinnedOptions(globals, ctx.env, services.profileUsed()))(words);
      const out = new Printer(io, globals, ctx.clock);
      try {
        await run({ ctx, globals, io, out, services, paste }, args, opts, command);
        await io.finished();
      } catch (err) {
        throw refineError(err, { credentials: services.resolvedCredentials, paste });
      } finally {
        services.close();
      }
    };
  }
}
