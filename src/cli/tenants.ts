import { setMaxListeners } from 'node:events';
import { finished } from 'node:stream/promises';
import { CREDENTIAL_VARIABLES, PROFILE_VARIABLE } from '../config/credential-variables.js';
import { configDir } from '../config/paths.js';
import { selectProfiles } from '../config/profile-patterns.js';
import { readProfiles } from '../config/profile-store.js';
import { parseOrigin } from '../config/tenant.js';
import type { Context } from '../context.js';
import { errorCodeOf, exitCodeFor } from '../error-codes.js';
import { CliError, type ErrorKind, Interrupted, interruption, TenantsFailed } from '../errors.js';
import type { Globals, TenantPatterns } from '../global-options.js';
import { errorEnvelope } from '../io/error-report.js';
import { cancelledError, TenantOutput, type TenantStreams, tenantStderr } from '../io/tenant-output.js';
import type { TableSpec } from '../render/table-model.js';
import { NO_TRACER } from '../traces/tracer.js';
import { runBounded } from '../util/bounded-runs.js';
import type { Invocation } from './invocation.js';
import { pasteHint } from './paste.js';

/** One tenant of a run across several: its profile and the host of its domain (as the store has it). */
export interface TenantRef {
  readonly profile: string;
  readonly domain: string | undefined;
}

/** What builds a tenant's invocation and words its failure (the Host). */
export interface InvocationMaker {
  invocation(ctx: Context, globals: Globals, tenant?: string, collect?: (spec: TableSpec) => void): Invocation;
  refine(inv: Invocation, err: unknown): unknown;
}

/** How a run across tenants ends. */
export interface EachOptions {
  /**
   * A run that writes (a delete): after a stop signal, every tenant's outcome is still printed (done, outcome
   * unknown, or `cancelled`), then the stop's exit. A read prints nothing after a stop, as it does for one tenant.
   */
  readonly reportStops?: boolean;
}

/** The tenants a command runs across, and the loop that runs it for each (cli.md, "Many tenants"). */
export interface Tenants {
  /** The run's own invocation: its questions, notices and merged output. */
  readonly inv: Invocation;
  /** In profile (name) order. */
  readonly list: readonly TenantRef[];
  /**
   * Runs `run` once per tenant, each with an invocation of its own (its profile as a unit, its token, token cache
   * entry, rate-limit state and retries), at most `--parallel` at once; one tenant's failure stops no other unless
   * `--fail-fast`. Prints the merged output; throws `TenantsFailed` when any tenant failed.
   */
  each(run: (inv: Invocation) => Promise<void>, options?: EachOptions): Promise<void>;
  /**
   * An invocation of `profile` alone for a command that merges the tenants itself (`events tail`): its own services,
   * its stderr lines marked with the profile. Close its services when done.
   */
  open(profile: string): Invocation;
  /** What builds a tenant's invocation and words its failure. */
  readonly maker: InvocationMaker;
  /** The pasteable command line across these tenants (`--profiles a,b`, the output options), for a resume line. */
  paste(words: readonly string[]): string;
}

/**
 * The exit of a run across tenants once each has been reported: nothing when none failed; else `TenantsFailed`
 * naming each failed tenant and its code (the code they share when every tenant failed alike, else 9).
 */
export function tenantsOutcome(
  total: number,
  failures: readonly {
    readonly profile: string;
    readonly code: number;
    readonly kind: Exclude<ErrorKind, 'interrupted'>;
  }[],
  succeeded: number,
  stopped: readonly string[] = [],
): TenantsFailed | undefined {
  if (failures.length === 0) return undefined;
  const byProfile = [...failures].sort((a, b) => (a.profile < b.profile ? -1 : 1));
  const named = byProfile.map((f) => `${f.profile} (exit ${f.code})`).join(', ');
  const notRun = stopped.length > 0 ? `; stopped by --fail-fast: ${[...stopped].sort().join(', ')}` : '';
  const message = `${failures.length} of ${total} tenants failed: ${named}${notRun}`;
  const alike = succeeded === 0 && failures.every((f) => f.code === failures[0]?.code);
  return new TenantsFailed(alike ? (failures[0]?.kind ?? 'bug') : 'partial', message);
}

/** The exit code and kind of a tenant's failure, worded by the maker. */
export function tenantFailure(
  maker: InvocationMaker,
  inv: Invocation,
  err: unknown,
): { refined: unknown; code: number; kind: Exclude<ErrorKind, 'interrupted'> } {
  const refined = maker.refine(inv, err);
  const code = exitCodeFor(refined);
  const kind = refined instanceof CliError && refined.kind !== 'interrupted' ? refined.kind : 'bug';
  return { refined, code, kind };
}

/** The host of a stored domain (`tenant.example.com`, `127.0.0.1:4010`), else the domain as stored. */
function hostOf(domain: string): string {
  try {
    return new URL(parseOrigin(domain)).host;
  } catch {
    return domain;
  }
}

/**
 * Each profile is taken as a unit across tenants: the credential variables of the environment (and SVCADM_PROFILE)
 * are used by no tenant, said once for the run (the loop below, and `svcadm mcp --profiles`).
 */
export function announceIgnoredVariables(inv: Invocation): void {
  const env = inv.ctx.env;
  const ignored = [PROFILE_VARIABLE, ...Object.values(CREDENTIAL_VARIABLES)].filter((v) => (env[v] ?? '') !== '');
  if (ignored.length > 0) {
    inv.io.notice(`Using each profile as a whole: ignoring ${ignored.join(', ')} from the environment.`);
  }
}

/**
 * The profiles `--profiles` names, in name order (none matched: exit 2, listing those there are), and one notice
 * naming the credential variables that no tenant will use.
 */
export function selectTenants(inv: Invocation, patterns: TenantPatterns, maker: InvocationMaker): Tenants {
  const store = readProfiles(configDir(inv.ctx.env));
  const profiles = selectProfiles(patterns.patterns, Object.keys(store.profiles));
  announceIgnoredVariables(inv);
  const list = profiles.map((profile) => {
    const domain = store.profiles[profile]?.domain;
    return { profile, domain: domain === undefined ? undefined : hostOf(domain) };
  });
  const { ctx, globals } = inv;
  const open = (profile: string): Invocation => {
    const tenantCtx: Context = {
      ...ctx,
      io: {
        stdout: ctx.io.stdout,
        stderr: tenantStderr(inv.io, profile),
        get stdin() {
          return ctx.io.stdin;
        },
      },
    };
    return maker.invocation(tenantCtx, tenantGlobals(globals, globals.format, profile), profile);
  };
  const names = list.map((t) => t.profile).join(',');
  const paste = (words: readonly string[]) => pasteHint(['--profiles', names, ...globals.outputArgs])(words);
  return { inv, list, maker, each: (run, options) => runEach(inv, list, maker, run, options), open, paste };
}

/**
 * Every tenant's requests listen to the run's stop signals (each removes its listener when done): many tenants at
 * once are no leak, and Node's warning about more than 10 listeners would be noise on stderr.
 */
export function allowListenersOfTenants(...signals: AbortSignal[]): void {
  setMaxListeners(0, ...signals);
}

/** A tenant's own global options: its profile, as `-p` names one (the hints it prints pin it). */
function tenantGlobals(globals: Globals, format: Globals['format'], profile: string): Globals {
  return Object.freeze({
    ...globals,
    format,
    credentials: Object.freeze({ profile }),
    tenants: undefined,
    // Progress lines and live views are the merged run's, not each tenant's.
    redraw: Object.freeze({ stdout: false, stderr: false }),
    prompts: false,
  });
}

interface Failure {
  readonly profile: string;
  readonly code: number;
  readonly kind: Exclude<ErrorKind, 'interrupted'>;
}

/** Waits for a tenant's streams to hand on all it wrote. */
async function flushed(streams: TenantStreams): Promise<void> {
  streams.stdout.end();
  streams.stderr.end();
  await Promise.all([finished(streams.stdout), finished(streams.stderr)]);
}

async function runEach(
  inv: Invocation,
  list: readonly TenantRef[],
  maker: InvocationMaker,
  run: (inv: Invocation) => Promise<void>,
  options: EachOptions = {},
): Promise<void> {
  const { ctx, globals } = inv;
  const output = await TenantOutput.open(inv.io, globals.format, ctx.env);
  try {
    await runTenants(inv, list, maker, run, options, output);
  } finally {
    await output.close();
  }
}

async function runTenants(
  inv: Invocation,
  list: readonly TenantRef[],
  maker: InvocationMaker,
  run: (inv: Invocation) => Promise<void>,
  options: EachOptions,
  output: TenantOutput,
): Promise<void> {
  const { ctx, globals } = inv;
  const failFast = new AbortController();
  const signal = AbortSignal.any([ctx.interrupt, failFast.signal]);
  allowListenersOfTenants(ctx.interrupt, signal);
  const globalsOf = (profile: string): Globals => tenantGlobals(globals, output.tenantFormat, profile);
  const failures: Failure[] = [];
  const stopped = new Set<string>();
  const succeeded = new Set<string>();

  const tracer = ctx.tracer ?? NO_TRACER;
  // Each tenant in a span of its own (traces on): its token and requests are its children.
  const runOne = async (ref: TenantRef): Promise<void> => {
    const span = tracer.startSpan('svcadm tenant', { 'svcadm.profile': ref.profile });
    try {
      const outcome = await tracer.withSpan(span, () => runTenant(ref));
      span.setAttributes({ 'svcadm.tenant.outcome': outcome.outcome });
      if (outcome.code !== undefined) span.failed(outcome.code);
    } finally {
      span.end();
    }
  };

  const runTenant = async ({
    profile,
    domain,
  }: TenantRef): Promise<{ outcome: 'succeeded' | 'failed' | 'cancelled'; code?: string }> => {
    const streams = output.streams(profile);
    const tenantCtx: Context = {
      ...ctx,
      io: {
        stdout: streams.stdout,
        stderr: streams.stderr,
        get stdin() {
          return ctx.io.stdin;
        },
      },
      interrupt: signal,
    };
    const tenant = maker.invocation(tenantCtx, globalsOf(profile), profile, streams.collect);
    try {
      await run(tenant);
      await tenant.io.finished();
      await flushed(streams);
      await output.succeeded(profile, domain);
      succeeded.add(profile);
      return { outcome: 'succeeded' };
    } catch (err) {
      await flushed(streams).catch(() => {});
      // A write cut off on its way is no stop: its outcome is unknown, and said.
      if (err instanceof Interrupted && signal.aborted && err.reason !== 'outcome_unknown') {
        // Ctrl-C stops the whole run; --fail-fast stops the others, which did not fail.
        stopped.add(profile);
        return { outcome: 'cancelled' };
      }
      const { refined, code, kind } = tenantFailure(maker, tenant, err);
      failures.push({ profile, code, kind });
      await output.failed(profile, domain, errorEnvelope(refined, code));
      if (globals.failFast) failFast.abort(new Interrupted('SIGINT'));
      return { outcome: 'failed', code: errorCodeOf(refined) };
    } finally {
      tenant.services.close();
    }
  };

  await runBounded(list, globals.parallel, runOne, signal);
  const stop = ctx.interrupt.aborted ? interruption(ctx.interrupt) : undefined;
  if (stop !== undefined && options.reportStops !== true) throw stop;
  // Every tenant stopped before it finished (by --fail-fast, or a signal after which a write reports) has its
  // `cancelled` entry (cli.md "Many tenants", round 5).
  const why = stop ? `stopped by ${stop.signal}` : `stopped by --fail-fast: ${failures[0]?.profile ?? ''} failed`;
  for (const { profile, domain } of list) {
    if (!succeeded.has(profile) && !failures.some((f) => f.profile === profile)) {
      stopped.add(profile);
      await output.failed(profile, domain, { error: cancelledError(why) });
    }
  }
  // A result that could not be kept would leave a tenant out unseen: the run says so instead of printing.
  if (output.failure !== undefined) throw output.failure;
  await inv.out.tenants(
    output,
    list.map((t) => t.profile),
  );
  if (stop !== undefined) throw stop;
  const failed = tenantsOutcome(list.length, failures, succeeded.size, [...stopped]);
  if (failed) throw failed;
}
