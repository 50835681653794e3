import { type AgentMode, agentModeOf } from './agent-mode.js';
import type { CredentialFlags } from './config/credentials.js';
import { parseProfilePatterns } from './config/profile-patterns.js';
import type { Env, Io, OutStream } from './context.js';
import { UsageError } from './errors.js';
import type { Query } from './render/query.js';
import { parseDuration, parseIntegerOption } from './util/duration.js';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'ndjson', 'raw'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The formats that print data as it is (JSON values): `--query` reshapes them; tables are views for people. */
const DATA_FORMATS: readonly OutputFormat[] = ['json', 'yaml', 'ndjson', 'raw'];

/** `SVCADM_ACCESSIBLE`: any value but empty, `0` and `false` stands in for `--accessible`. */
export const ACCESSIBLE_VARIABLE = 'SVCADM_ACCESSIBLE';

/** The root options of cli.md exactly as commander hands them over (strings; booleans for flags). */
export interface RawGlobalOptions extends CredentialFlags {
  output?: string;
  json?: boolean;
  query?: string;
  color?: boolean;
  quiet?: boolean;
  debug?: boolean;
  maxRetries?: string;
  timeout?: string;
  /** false with --no-headers. */
  headers?: boolean;
  accessible?: boolean;
  profiles?: string;
  parallel?: string;
  failFast?: boolean;
}

/** `--profiles <pattern,…>` (or `SVCADM_PROFILES`): the tenants a command runs across, matched when it runs. */
export interface TenantPatterns {
  /** The comma-separated names and globs, as given. */
  readonly patterns: string;
  /** Where they came from: the flag is refused by commands that run against one tenant; the variable too, once they reach for one. */
  readonly source: 'flag' | 'environment';
  /**
   * Why the variable cannot be used (patterns it cannot parse, or -p or a credential flag beside it): thrown only by
   * a command that uses it (one that takes `--profiles`, or reaches for a tenant); one that talks to no tenant
   * ignores it (docs/decisions/2026-11-28-profiles-variable-where-used.md). Never set for the flag, refused at once.
   */
  readonly refused?: UsageError;
}

export const PROFILES_VARIABLE = 'SVCADM_PROFILES';
export const DEFAULT_PARALLEL = 8;
/** More tenants at once than this only adds sockets and memory: the bound on `--parallel`. */
export const MAX_PARALLEL = 64;

/** The global options of one invocation, parsed once before the command runs. */
export interface Globals {
  readonly format: OutputFormat;
  /**
   * Chosen with -o, --json or --query (or data for an agent) rather than by the terminal test; only then do errors
   * become a JSON envelope.
   */
  readonly formatChosen: boolean;
  /** `--query`, compiled; undefined without it. */
  readonly query: Query | undefined;
  /** The options that chose the output, as given (`-o wide`, `--json`, `--query …`), for hints the user pastes. */
  readonly outputArgs: readonly string[];
  /** Tables with their heading line (not with --no-headers). */
  readonly headers: boolean;
  /**
   * For screen readers and braille displays (`--accessible`, SVCADM_ACCESSIBLE): nothing redrawn (no live view, no
   * progress line: plain lines instead), questions asked in words, no meaning in colour alone.
   */
  readonly accessible: boolean;
  readonly quiet: boolean;
  readonly debug: boolean;
  readonly color: { readonly stdout: boolean; readonly stderr: boolean };
  /** A terminal that takes cursor movement (not `TERM=dumb`): progress lines and the live view redraw on it. */
  readonly redraw: { readonly stdout: boolean; readonly stderr: boolean };
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly credentials: CredentialFlags;
  /** Run for an AI agent: as off a terminal even in one (data, JSON errors, no prompt, colour, progress, live view). */
  readonly agent: AgentMode;
  /** Questions may be asked: stdin is a terminal and no agent runs svcadm. Else a destructive command needs --yes. */
  readonly prompts: boolean;
  /** The tenants to run across (`--profiles`), undefined for a run against one tenant. */
  readonly tenants: TenantPatterns | undefined;
  /** At most this many tenants at once (`--parallel`, default 8). */
  readonly parallel: number;
  /** Stop the other tenants at the first tenant that fails (`--fail-fast`). */
  readonly failFast: boolean;
}

export const DEFAULT_MAX_RETRIES = 5;
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * `-o`, `--json`; else JSON for `--query` (its result is data, not a table), a table for `--no-headers` (it is about
 * tables) and JSON for an agent, a table on a terminal, JSON otherwise.
 */
function resolveFormat(raw: RawGlobalOptions, stdout: OutStream, agent: AgentMode): OutputFormat {
  const explicit = raw.output;
  if (explicit !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(explicit)) {
    throw new UsageError(`unknown output format '${explicit}'`, `use ${formatList()}`);
  }
  if (raw.json && explicit !== undefined && explicit !== 'json') {
    throw new UsageError(`--json conflicts with -o ${explicit}`);
  }
  const format = raw.json ? 'json' : (explicit as OutputFormat | undefined);
  if (raw.query !== undefined && format !== undefined && !DATA_FORMATS.includes(format)) {
    throw new UsageError(`--query does not apply to -o ${format}`, 'it reshapes -o json, yaml or ndjson');
  }
  if (
    raw.headers === false &&
    (raw.query !== undefined || (format !== undefined && format !== 'table' && format !== 'wide'))
  ) {
    throw new UsageError(
      `--no-headers does not apply to ${raw.query !== undefined ? '--query' : `-o ${format}`}`,
      'it drops the heading line of -o table or wide',
    );
  }
  if (format) return format;
  if (raw.headers === false) return 'table';
  if (raw.query !== undefined || agent.on) return 'json';
  return stdout.isTTY ? 'table' : 'json';
}

/** `table, wide, json, yaml or ndjson`. */
function formatList(): string {
  return `${OUTPUT_FORMATS.slice(0, -1).join(', ')} or ${OUTPUT_FORMATS[OUTPUT_FORMATS.length - 1]}`;
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/**
 * --no-color and NO_COLOR turn colour off, FORCE_COLOR turns it on (piped too, and on `TERM=dumb`: it is asked for),
 * else only on a terminal that is not `TERM=dumb`.
 */
function colorFor(raw: RawGlobalOptions, env: Env, stream: OutStream, agent: AgentMode): boolean {
  if (raw.color === false || agent.on) return false;
  if (isSet(env.NO_COLOR)) return false;
  const force = env.FORCE_COLOR;
  if (isSet(force)) return force !== '0' && force !== 'false';
  return redrawsOn(env, stream, agent);
}

/**
 * Cursor movement (progress lines, the live view) only on a terminal, never on `TERM=dumb`, for an agent nor in
 * accessible mode.
 */
function redrawsOn(env: Env, stream: OutStream, agent: AgentMode, accessible = false): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb' && !agent.on && !accessible;
}

/** `--accessible`, else SVCADM_ACCESSIBLE set to anything but empty, `0` and `false`. */
export function isAccessible(raw: Pick<RawGlobalOptions, 'accessible'>, env: Env): boolean {
  if (raw.accessible === true) return true;
  const value = env[ACCESSIBLE_VARIABLE]?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** The output options as given, to repeat them in a pasteable hint. */
function outputArgsOf(raw: RawGlobalOptions): string[] {
  const args: string[] = [];
  if (raw.json) args.push('--json');
  else if (raw.output !== undefined) args.push('-o', raw.output);
  if (raw.query !== undefined) args.push('--query', raw.query);
  if (raw.headers === false) args.push('--no-headers');
  return args;
}

/**
 * `--query`, compiled by a JMESPath library loaded only when the option is given; a bad expression is a usage error
 * here, before anything is sent.
 */
async function compileQueryOption(text: string | undefined): Promise<Query | undefined> {
  if (text === undefined) return undefined;
  const { compileQuery } = await import('./render/query.js');
  return compileQuery(text);
}

/**
 * How to show an error raised before the global options were parsed (an unknown command at the root, a bad
 * `--max-retries`): from what commander read of them; undefined when the output format is itself the problem.
 */
export function errorViewOf(
  raw: RawGlobalOptions,
  io: Io,
  env: Env,
): Pick<Globals, 'format' | 'formatChosen' | 'debug'> | undefined {
  try {
    const agent = agentModeOf(env);
    return {
      format: resolveFormat(raw, io.stdout, agent),
      formatChosen: isFormatChosen(raw, agent),
      debug: raw.debug === true,
    };
  } catch {
    return undefined;
  }
}

function isFormatChosen(raw: RawGlobalOptions, agent: AgentMode): boolean {
  return raw.output !== undefined || raw.json === true || raw.query !== undefined || agent.on;
}

/** Validates every global option; a bad value is a usage error before anything is sent. */
export async function parseGlobals(raw: RawGlobalOptions, env: Env, io: Io): Promise<Globals> {
  const agent = agentModeOf(env);
  const format = resolveFormat(raw, io.stdout, agent);
  const maxRetries =
    raw.maxRetries === undefined ? DEFAULT_MAX_RETRIES : parseIntegerOption(raw.maxRetries, '--max-retries', 0, 100);
  const timeoutMs = raw.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(raw.timeout, '--timeout');
  if (timeoutMs <= 0) throw new UsageError('--timeout must be more than 0');
  const query = await compileQueryOption(raw.query);
  const accessible = isAccessible(raw, env);
  const tenants = tenantPatternsOf(raw, env);
  const parallel =
    raw.parallel === undefined ? DEFAULT_PARALLEL : parseIntegerOption(raw.parallel, '--parallel', 1, MAX_PARALLEL);
  const { profile, domain, clientId, clientSecret, clientAssertionKey, clientAssertionAlg, token, authUrl, audience } =
    raw;
  return Object.freeze({
    format,
    formatChosen: isFormatChosen(raw, agent),
    query,
    outputArgs: Object.freeze(outputArgsOf(raw)),
    headers: raw.headers !== false,
    accessible,
    quiet: raw.quiet === true,
    debug: raw.debug === true,
    color: Object.freeze({
      stdout: colorFor(raw, env, io.stdout, agent),
      stderr: colorFor(raw, env, io.stderr, agent),
    }),
    redraw: Object.freeze({
      stdout: redrawsOn(env, io.stdout, agent, accessible),
      stderr: redrawsOn(env, io.stderr, agent, accessible),
    }),
    maxRetries,
    timeoutMs,
    credentials: Object.freeze({
      profile,
      domain,
      clientId,
      clientSecret,
      clientAssertionKey,
      clientAssertionAlg,
      token,
      authUrl,
      audience,
    }),
    agent: Object.freeze(agent),
    // Read when a command would ask, not at every start (see processContext).
    get prompts() {
      return io.stdin.isTTY === true && !agent.on;
    },
    tenants,
    parallel,
    failFast: raw.failFast === true,
  });
}

/** The credential flags that choose one tenant, as the user typed them, for the refusal beside `--profiles`. */
const ONE_TENANT_FLAGS: ReadonlyArray<readonly [keyof CredentialFlags, string]> = [
  ['profile', '-p'],
  ['domain', '--domain'],
  ['clientId', '--client-id'],
  ['clientSecret', '--client-secret'],
  ['clientAssertionKey', '--client-assertion-key'],
  ['clientAssertionAlg', '--client-assertion-alg'],
  ['token', '--token'],
  ['authUrl', '--auth-url'],
  ['audience', '--audience'],
];

/**
 * `--profiles`, else `SVCADM_PROFILES`: each profile is taken as a unit, so neither goes with `-p` or a credential
 * flag (exit 2, nothing sent). An empty pattern is refused here for the flag; for the variable, which a shell may
 * hold for other commands, the refusal is kept for the commands that use it (`refused`). Whether any profile
 * matches is known when the command runs (the store is read then).
 */
function tenantPatternsOf(raw: RawGlobalOptions, env: Env): TenantPatterns | undefined {
  const fromEnv = env[PROFILES_VARIABLE];
  const given: TenantPatterns | undefined =
    raw.profiles !== undefined
      ? { patterns: raw.profiles, source: 'flag' }
      : fromEnv !== undefined && fromEnv !== ''
        ? { patterns: fromEnv, source: 'environment' }
        : undefined;
  if (given === undefined) return undefined;
  const refused = refusalOf(raw, given);
  if (refused === undefined) return Object.freeze(given);
  if (given.source === 'flag') throw refused;
  return Object.freeze({ ...given, refused });
}

/** Why `given` cannot be used: a one-tenant flag beside it, or patterns that do not parse. */
function refusalOf(raw: RawGlobalOptions, given: TenantPatterns): UsageError | undefined {
  const named = given.source === 'flag' ? '--profiles' : PROFILES_VARIABLE;
  const clash = ONE_TENANT_FLAGS.find(([field]) => raw[field] !== undefined);
  if (clash) {
    return new UsageError(
      `${named} cannot be combined with ${clash[1]}: each profile is taken as a unit`,
      given.source === 'flag'
        ? `drop ${clash[1]}, or run one tenant with -p <name>`
        : `unset ${PROFILES_VARIABLE} to run one tenant`,
    );
  }
  try {
    parseProfilePatterns(given.patterns, named);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  return undefined;
}
