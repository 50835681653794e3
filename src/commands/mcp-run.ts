import type { Invocation } from '../cli/host.js';
import type { McpOptions } from './mcp.js';

export async function runMcp(inv: Invocation, opts: McpOptions): Promise<void> {
  // The SDK and zod load only here: no other command pays for them.
  const { serveMcp } = await import('../mcp/server.js');
  await serveMcp(inv, opts);
}
