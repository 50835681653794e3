import type { Env, Io, OutStream } from './context.js';
import { UsageError } from './errors.js';
import { parseDuration, parseIntegerOption } from './util/duration.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The root options of cli.md exactly as commander hands them over (strings; booleans for flags). */
export interface RawGlobalOptions {
  profile?: string;
  domain?: string;
  clientId?: string;
  clientSecret?: string;
  clientAssertionKey?: string;
  clientAssertionAlg?: string;
  token?: string;
  authUrl?: string;
  audience?: string;
  output?: string;
  json?: boolean;
  color?: boolean;
  quiet?: boolean;
  debug?: boolean;
  maxRetries?: string;
  timeout?: string;
}

/** The credential flags, as given; `config/credentials.ts` decides what they mean together with the environment. */
export type CredentialFlags = Readonly<
  Pick<
    RawGlobalOptions,
    | 'profile'
    | 'domain'
    | 'clientId'
    | 'clientSecret'
    | 'clientAssertionKey'
    | 'clientAssertionAlg'
    | 'token'
    | 'authUrl'
    | 'audience'
  >
>;

/** The global options of one invocation, parsed once before the command runs. */
export interface Globals {
  readonly format: OutputFormat;
  /** Chosen with -o or --json rather than by the terminal test; only then do errors become a JSON envelope. */
  readonly formatChosen: boolean;
  readonly quiet: boolean;
  readonly debug: boolean;
  readonly color: { readonly stdout: boolean; readonly stderr: boolean };
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly credentials: CredentialFlags;
}

export const DEFAULT_MAX_RETRIES = 5;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** `-o`, `--json`, else a table on a terminal and JSON otherwise. */
function resolveFormat(raw: RawGlobalOptions, stdout: OutStream): OutputFormat {
  const explicit = raw.output;
  if (explicit !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(explicit)) {
    throw new UsageError(`unknown output format '${explicit}'`, `use ${OUTPUT_FORMATS.join(', ')}`);
  }
  if (raw.json && explicit !== undefined && explicit !== 'json') {
    throw new UsageError(`--json conflicts with -o ${explicit}`);
  }
  if (raw.json) return 'json';
  if (explicit) return explicit as OutputFormat;
  return stdout.isTTY ? 'table' : 'json';
}

/** --no-color and NO_COLOR turn colour off, FORCE_COLOR turns it on, else only on a terminal. */
function colorFor(raw: RawGlobalOptions, env: Env, stream: OutStream): boolean {
  if (raw.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return stream.isTTY === true;
}

/**
 * How to show an error raised before the global options were parsed (an unknown command at the root, a bad
 * `--max-retries`): from what commander read of them; undefined when the output format is itself the problem.
 */
export function errorViewOf(
  raw: RawGlobalOptions,
  io: Io,
): Pick<Globals, 'format' | 'formatChosen' | 'debug'> | undefined {
  try {
    return { format: resolveFormat(raw, io.stdout), formatChosen: isFormatChosen(raw), debug: raw.debug === true };
  } catch {
    return undefined;
  }
}

function isFormatChosen(raw: RawGlobalOptions): boolean {
  return raw.output !== undefined || raw.json === true;
}

/** Validates every global option; a bad value is a usage error before anything is sent. */
export function parseGlobals(raw: RawGlobalOptions, env: Env, io: Io): Globals {
  const format = resolveFormat(raw, io.stdout);
  const maxRetries =
    raw.maxRetries === undefined ? DEFAULT_MAX_RETRIES : parseIntegerOption(raw.maxRetries, '--max-retries', 0, 100);
  const timeoutMs = raw.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(raw.timeout, '--timeout');
  if (timeoutMs <= 0) throw new UsageError('--timeout must be more than 0');
  const { profile, domain, clientId, clientSecret, clientAssertionKey, clientAssertionAlg, token, authUrl, audience } =
    raw;
  return Object.freeze({
    format,
    formatChosen: isFormatChosen(raw),
    quiet: raw.quiet === true,
    debug: raw.debug === true,
    color: Object.freeze({ stdout: colorFor(raw, env, io.stdout), stderr: colorFor(raw, env, io.stderr) }),
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
  });
}
