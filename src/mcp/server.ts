import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { refineError } from '../cli/hints.js';
import type { Invocation } from '../cli/host.js';
import { CliError, interruption } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { packageVersion } from '../version.js';
import type { McpOptions } from './options.js';
import { errorResult, successResult } from './results.js';
import { selectTools } from './select.js';
import type { ToolEnv, ToolSpec } from './tool.js';
import { TOOLS } from './tools.js';

/** The most one message from the client may weigh (the SDK's default is 10 MB); every tool's input is far smaller. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

const CONFIRM_KEY = 'confirm';
const CONFIRM_SCHEMA = {
  type: 'object' as const,
  properties: {
    confirm: { type: 'boolean' as const, title: 'Delete', description: 'Yes: delete it. This cannot be undone.' },
  },
  required: ['confirm'],
};

/**
 * `svcadm mcp`: serves the selected tools on stdin/stdout until end of input (exit 0) or a stop signal (the
 * signal's exit code, as every command). Only the protocol goes to stdout; notices and warnings go to stderr.
 */
export async function serveMcp(inv: Invocation, opts: McpOptions): Promise<void> {
  const { ctx, io, services } = inv;
  const tools = selectTools(TOOLS, opts);
  // A missing or broken configuration ends here, with the CLI's message and exit code, before a client waits on it.
  const tenant = neutralize(new URL(services.credentials().origin).host);
  const instructions = instructionsFor(tenant, opts.allowWrites, tools);
  const hintContext = () => ({ credentials: services.resolvedCredentials, paste: inv.paste });

  const build = (): McpServer => {
    const server = new McpServer(
      { name: 'svcadm', version: packageVersion() },
      { capabilities: { tools: {} }, instructions },
    );
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.input,
          outputSchema: tool.output,
          annotations: tool.annotations,
        },
        async (args, call): Promise<CallToolResult | InputRequiredResult> => {
          const env: ToolEnv = {
            api: () => services.api(),
            tenant: () => tenant,
            clock: ctx.clock,
            random: ctx.random,
            signal: AbortSignal.any([call.mcpReq.signal, ctx.interrupt]),
            secrets: services.secrets,
            confirmation: confirmationOf(call, server),
          };
          try {
            const outcome = await tool.run(args as Record<string, unknown>, env);
            if ('confirm' in outcome) {
              return inputRequired({
                inputRequests: {
                  [CONFIRM_KEY]: inputRequired.elicit({ message: outcome.confirm, requestedSchema: CONFIRM_SCHEMA }),
                },
              });
            }
            return successResult(outcome.data, outcome.text, services.secrets);
          } catch (err) {
            if (!(err instanceof CliError) && inv.globals.debug && err instanceof Error) {
              io.stderr.write(`${err.stack ?? err.message}\n`);
            }
            return errorResult(refineError(err, hintContext()), services.secrets);
          }
        },
      );
    }
    return server;
  };

  const { stdin, stdout } = ctx.io;
  const ended = new Promise<'eof' | 'signal'>((resolve) => {
    stdin.once('end', () => resolve('eof'));
    stdin.once('close', () => resolve('eof'));
    if (ctx.interrupt.aborted) resolve('signal');
    ctx.interrupt.addEventListener('abort', () => resolve('signal'), { once: true });
  });
  const wire = new StdioServerTransport(stdin, stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  const handle = serveStdio(build, {
    transport: wire,
    onerror: (err) => io.warn(`mcp: ${neutralize(err.message)}`),
  });
  const mode = opts.allowWrites ? 'writes allowed' : 'read-only';
  io.notice(`svcadm mcp: serving ${tools.length} tools for ${tenant} on stdio (${mode})`);
  const how = await ended;
  await handle.close();
  if (how === 'signal') {
    // Nothing more will be read: let the process end.
    stdin.destroy();
    throw interruption(ctx.interrupt);
  }
}

/** The user's answer to this call's question, when it carries one; else whether the client can be asked at all. */
function confirmationOf(call: ServerContext, server: McpServer): ToolEnv['confirmation'] {
  const answer = call.mcpReq.inputResponses?.[CONFIRM_KEY];
  if (answer !== undefined) {
    const accepted =
      isRecord(answer) && answer.action === 'accept' && isRecord(answer.content) && answer.content.confirm === true;
    return accepted ? 'accepted' : 'declined';
  }
  return canElicitForms(call, server) ? 'not_asked' : 'unsupported';
}

/** Form elicitation, as the client declared it: per request (2026-07-28), else at `initialize` (2025 revisions). */
function canElicitForms(call: ServerContext, server: McpServer): boolean {
  const envelope = call.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.server.getClientCapabilities();
  const elicitation = declared?.elicitation;
  if (elicitation === undefined) return false;
  // An empty elicitation capability means form mode (the spec's backwards-compatible reading).
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function instructionsFor(tenant: string, allowWrites: boolean, tools: readonly ToolSpec[]): string {
  const writes = allowWrites
    ? 'Writes are allowed (svcadm mcp --allow-writes): delete_connection_user deletes a user and cannot be undone; confirm with the user before calling it.'
    : 'Read-only: no tool offered here changes the tenant (svcadm mcp --allow-writes offers delete_connection_user).';
  return [
    `svcadm administers the identity service tenant ${tenant} through its management interface.`,
    writes,
    `Tools: ${tools.map((tool) => tool.name).join(', ')}.`,
    'Lists return one page and a next_cursor to pass back as cursor; read_events returns a bounded slice of the event stream and the next_cursor to read on from.',
    'Text from the service is shown as in the terminal: control characters escaped (\\x1b), long strings cut with …. Errors are tool results with the message, code and hint svcadm prints.',
  ].join('\n');
}
