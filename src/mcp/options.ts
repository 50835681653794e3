// The options of `svcadm mcp`, parsed apart from the command: the server gets them as data.
import { UsageError } from '../errors.js';

export interface McpRaw {
  /** `--allow-writes` alone (true), or `--allow-writes=unconfirmed`. */
  allowWrites?: boolean | string;
  tools?: string;
  maxStreams?: string;
}

export interface McpOptions {
  allowWrites: boolean;
  /** `--allow-writes=unconfirmed`: a client that cannot ask the user may still delete. Unsafe with untrusted data. */
  unconfirmed: boolean;
  /** Tool-name globs (`*`, `?`); undefined: every tool the mode allows. */
  tools: readonly string[] | undefined;
  /** Event streams held at once by `read_events` calls (`--max-streams`). */
  maxStreams: number;
  /**
   * The global `--profiles <pattern,…>` (or `SVCADM_PROFILES`), checked when the globals were read: the tenants the
   * tools may act on, by `profile`; undefined: the invocation's own.
   */
  profiles: string | undefined;
}

const GLOB = /^[a-z0-9_*?]{1,64}$/;
/** Below the four streams of the smallest plan seen, so that a team's own tails keep some. */
export const MAX_STREAMS_DEFAULT = 1;
const MAX_STREAMS_LIMIT = 16;

export function parseMcpOptions(raw: McpRaw, profiles: string | undefined): McpOptions {
  let tools: string[] | undefined;
  if (raw.tools !== undefined) {
    tools = raw.tools.split(',').map((glob) => glob.trim());
    const bad = tools.find((glob) => !GLOB.test(glob));
    if (bad !== undefined) {
      throw new UsageError(
        bad === '' ? '--tools has an empty entry' : `--tools: '${bad}' is not a tool name or glob`,
        'give tool names or globs separated by commas, e.g. --tools "list_*,read_events"',
      );
    }
  }
  if (typeof raw.allowWrites === 'string' && raw.allowWrites !== 'unconfirmed') {
    throw new UsageError(
      `--allow-writes takes no value but 'unconfirmed', got '${raw.allowWrites.replace(/[^\x20-\x7e]/g, '?')}'`,
      '--allow-writes asks the user to confirm each write; --allow-writes=unconfirmed also lets a client that cannot ask write',
    );
  }
  let maxStreams = MAX_STREAMS_DEFAULT;
  if (raw.maxStreams !== undefined) {
    maxStreams = Number(raw.maxStreams);
    if (!/^\d+$/.test(raw.maxStreams) || maxStreams < 1 || maxStreams > MAX_STREAMS_LIMIT) {
      throw new UsageError(`--max-streams must be a whole number from 1 to ${MAX_STREAMS_LIMIT}`);
    }
  }
  return {
    allowWrites: raw.allowWrites !== undefined && raw.allowWrites !== false,
    unconfirmed: raw.allowWrites === 'unconfirmed',
    tools,
    maxStreams,
    profiles,
  };
}
