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

/** A group's run function: the invocation and the options its parse function made of the command line. */
export type RunFunction<O> = (inv: Invocation, options: O) => Promise<void>;

/** The exports of run module `M` that run with options `O`. */
type RunsTaking<M, O> = { [K in keyof M]: M[K] extends RunFunction<O> ? K : never }[keyof M];

/** Reads a command line's arguments and options into a run's options: pure, usage errors in our voice. */
export type ParseFunction<Args extends unknown[], Opts, O> = (
  args: Args,
  opts: Opts,
  inv: Invocation,
  command: Command,
) => O;

/**
 * What a command group registers its actions with (`src/commands/<group>/register.ts`). An action parses the line,
 * then loads the group's run module (`run.ts`, a lazy chunk, through the loader the root command table gives) and
 * calls one of its run functions by name.
 */
export class GroupActions<M> {
  constructor(
    private readonly host: Host,
    private readonly load: () => Promise<M>,
  ) {}

  run<O, Args extends unknown[] = [], Opts = object>(
    name: RunsTaking<M, O>,
    parse: ParseFunction<Args, Opts, O>,
  ): (...raw: unknown[]) => Promise<void> {
    return this.host.action<Args, Opts>(async (inv, args, opts, command) => {
      const options = parse(args, opts, inv, command);
      const module = await this.load();
      return (module[name] as RunFunction<O>)(inv, options);
    });
  }
}

/** Turns a run function into a commander action, with the invocation built around it and closed after it. */
export class Host {
  constructor(
    readonly ctx: Context,
    /** The global options, parsed before the command runs. */
    private readonly globals: () => Globals,
    /** The secrets stderr is scrubbed of; the services add the ones they learn. */
    private readonly secrets: Redactor,
  ) {}

  /** The actions of a group whose run code `load` brings. */
  group<M>(load: () => Promise<M>): GroupActions<M> {
    return new GroupActions(this, load);
  }

  /** The invocation built around `run` and closed after it; commands write their actions with `GroupActions.run`. */
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
