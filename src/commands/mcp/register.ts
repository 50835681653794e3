import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { TENANT_ENVIRONMENT } from '../../help/environment.js';
import { type McpRaw, parseMcpOptions } from '../../mcp/options.js';
import type * as Run from './run.js';

export function registerMcpCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('mcp')
    .description('serve the tenant to an AI agent: a Model Context Protocol server on stdin and stdout')
    .option(
      '--allow-writes',
      'also offer the tools that change the tenant (delete_connection_user); default: read-only',
    )
    .option('--tools <glob,...>', 'offer only the tools whose names match (e.g. "list_*,read_events")')
    .environment(TENANT_ENVIRONMENT)
    .addHelpText(
      'after',
      [
        '',
        'The server speaks MCP over stdio: stdout carries the protocol, logs go to stderr. It uses the same credentials as any command (-p, the environment, the current profile) and ends on end of input or a stop signal.',
        '',
        'Tools:',
        '  get_rate_limit_policy, list_rate_limit_policies, list_connections,',
        '  find_users_by_email, list_directory_provisionings, list_user_permissions,',
        '  read_events: read-only',
        '  delete_connection_user: only with --allow-writes; confirmed with the user when the client supports elicitation',
      ].join('\n'),
    )
    .addHelpText(
      'after',
      examples(
        'svcadm -p prod mcp',
        'svcadm -p prod mcp --tools "list_*,get_*"',
        'claude mcp add svcadm -- svcadm -p prod mcp',
      ),
    )
    .action(actions.run('runMcp', (_args: [], raw: McpRaw) => parseMcpOptions(raw)));
}
