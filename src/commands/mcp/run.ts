import type { Invocation } from '../../cli/host.js';
import type { McpOptions } from '../../mcp/options.js';
import { serveMcp } from '../../mcp/server.js';

/** The MCP server; the SDK and zod are in this group's chunk, which no other command loads. */
export async function runMcp(inv: Invocation, opts: McpOptions): Promise<void> {
  await serveMcp(inv, opts);
}
