// The options of `svcadm mcp` (--allow-writes, --tools), parsed apart from the command: the server gets them as data.
import { UsageError } from '../errors.js';

export interface McpRaw {
  allowWrites?: boolean;
  tools?: string;
}

export interface McpOptions {
  allowWrites: boolean;
  /** Tool-name globs (`*`, `?`); undefined: every tool the mode allows. */
  tools: readonly string[] | undefined;
}

const GLOB = /^[a-z0-9_*?]{1,64}$/;

export function parseMcpOptions(raw: McpRaw): McpOptions {
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
  return { allowWrites: raw.allowWrites === true, tools };
}
