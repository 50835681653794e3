import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { Globals } from '../global-options.js';
import { IOStreams } from '../io/io-streams.js';
import { outputGrace } from '../io/output-grace.js';
import { Printer } from '../io/printer.js';
import type { Redactor } from '../io/redaction.js';
import type { TableSpec } from '../render/table-model.js';
import { Services } from '../services.js';
import { commandPath } from './command.js';
import { refineError } from './hints.js';
import type { Invocation } from './invocation.js';
import { type PasteHint, pasteHint, pinnedOptions } from './paste.js';
import type { Tenants } from './tenants.js';

export type { Invocation } from './invocation.js';

/** A group's run function: the invocation and the options its parse function made of the command line. */
export type RunFunction<O> = (inv: Invocation, options: O) => Promise<void>;

/** The exports of run module `M` that run with options `O`. */
type RunsTaking<M, O> = { [K in keyof M]: M[K] extends RunFunction<O> ? K : never }[keyof M];

/** A group's run function for a run across several tenants (`--profiles`) that needs more than one run per tenant. */
export type ManyRunFunction<O> = (tenants: Tenants, options: O) => Promise<void>;

/** The exports of run module `M` that run across tenants with options `O`. */
type ManyRunsTaking<M, O> = { [K in keyof M]: M[K] extends ManyRunFunction<O> ? K : never }[keyof M];

/**
 * How a command runs across several tenants (`--profiles`, cli.md "Many tenants"): by default its run function once
 * per tenant, the outputs merged; `many` names a run function of its own (a delete asks once for every tenant).
 * A command registered without it runs against one tenant only.
 */
export interface AcrossTenants<M, O> {
  /** Why these options cannot run across tenants (`api` with a write), undefined when they can. */
  refuse?: (options: O) => string | undefined;
  many?: ManyRunsTaking<M, O>;
  /** The command serves the tenants itself from `inv.globals.tenants` (`svcadm mcp --profiles`): no loop. */
  self?: true;
}

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
    across?: AcrossTenants<M, O>,
  ): (...raw: unknown[]) => Promise<void> {
    return this.host.action<Args, Opts>(async (inv, args, opts, command) => {
      const selected = inv.globals.tenants;
      // A command that takes --profiles uses SVCADM_PROFILES, and refuses one it cannot use.
      if (across !== undefined && selected?.refused !== undefined) throw selected.refused;
      const options = parse(args, opts, inv, command);
      const servesItself = across?.self === true;
      const refusal =
        selected === undefined ? undefined : across ? across.refuse?.(options) : 'runs against one tenant';
      // SVCADM_PROFILES left in a shell is refused only by a command that reaches for a tenant (Services).
      if (refusal !== undefined && !servesItself && (across !== undefined || selected?.source === 'flag')) {
        const words = ['svcadm', ...commandPath(command)].join(' ');
        throw new UsageError(
          `--profiles does not apply to '${words}': it ${refusal}`,
          'name one tenant with -p <profile>',
        );
      }
      const module = await this.load();
      const run = module[name] as RunFunction<O>;
      if (selected === undefined || across === undefined || servesItself) return run(inv, options);
      const { selectTenants } = await import('./tenants.js');
      const tenants = selectTenants(inv, selected, this.host);
      if (across.many !== undefined) return (module[across.many] as ManyRunFunction<O>)(tenants, options);
      return tenants.each((tenant) => run(tenant, options));
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
      // The command's span (started by main) is named for the command: `svcadm policies get`.
      this.ctx.tracer?.activeSpan().updateName(['svcadm', ...commandPath(command)].join(' '));
      const inv = this.invocation(this.ctx, this.globals());
      try {
        await run(inv, args, opts, command);
        await inv.io.finished();
      } catch (err) {
        throw this.refine(inv, err);
      } finally {
        inv.services.close();
      }
    };
  }

  /**
   * An invocation in `ctx` with `globals`; for one tenant of a run across several, `tenant` names its profile and
   * `collect` takes its tables (they are merged with the others').
   */
  invocation(ctx: Context, globals: Globals, tenant?: string, collect?: (spec: TableSpec) => void): Invocation {
    const io = new IOStreams(ctx.io, globals, ctx.env, outputGrace(ctx.interrupt, ctx.clock));
    const services = new Services(ctx, globals, io, this.secrets, tenant);
    // Pinned when a line is made, by then the credentials (and the profile they came from) are known.
    const paste: PasteHint = (words) => pasteHint(pinnedOptions(globals, ctx.env, services.profileUsed()))(words);
    const out = new Printer(io, globals, ctx.clock, collect);
    return { ctx, globals, io, out, services, paste };
  }

  /** A failure with the CLI's advice for its reason, naming where the credentials came from. */
  refine(inv: Invocation, err: unknown): unknown {
    return refineError(err, { credentials: inv.services.resolvedCredentials, paste: inv.paste });
  }
}
