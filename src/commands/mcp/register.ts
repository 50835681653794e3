import { examples, option, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions, Invocation } from '../../cli/host.js';
import { PROFILES_VARIABLE } from '../../global-options.js';
import { TENANT_ENVIRONMENT } from '../../help/environment.js';
import { MAX_STREAMS_DEFAULT, type McpOptions, type McpRaw, parseMcpOptions } from '../../mcp/options.js';
import type * as Run from './run.js';

export function registerMcpCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('mcp')
    .description('serve the tenant to an AI agent: a Model Context Protocol server on stdin and stdout')
    .streaming()
    .option(
      '--allow-writes [unconfirmed]',
      'also offer the tools that change the tenant (delete_connection_user), each write confirmed by the user through the client; =unconfirmed: a client that cannot ask writes unconfirmed (UNSAFE when the agent reads data others can write); default: read-only',
    )
    .option('--tools <glob,...>', 'offer only the tools whose names match (e.g. "list_*,read_events")')
    .option(
      '--max-streams <n>',
      `event streams read_events may hold at once, 1 to 16 (default ${MAX_STREAMS_DEFAULT}: the tenant's few streams stay for your tails)`,
    )
    // The root's --profiles (it takes the value wherever it stands): mcp serves the tenants itself (`self` below).
    .servesGlobalOption(
      option(
        '--profiles <pattern,...>',
        "serve these profiles (names or globs, e.g. 'prod-*'), each taken as a unit: the tools take a profile argument, and list_profiles names them",
      )
        .completes({ kind: 'profiles' })
        .environmentVariable(PROFILES_VARIABLE),
    )
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
        '  delete_connection_user: only with --allow-writes',
        '  list_profiles: only with --profiles',
        '',
        'svcadm asks the user (elicitation) before each delete and deletes only on their yes; a client that cannot ask is refused, unless --allow-writes=unconfirmed.',
        '',
        'Every result is at most 256 KB (what was cut is named) and marks text from the tenant as untrusted data.',
      ].join('\n'),
    )
    .addHelpText(
      'after',
      examples(
        'svcadm -p prod mcp',
        'svcadm -p prod mcp --tools "list_*,get_*"',
        "svcadm mcp --profiles 'prod-*'",
        'claude mcp add svcadm -- svcadm -p prod mcp',
      ),
    )
    .action(
      actions.run(
        'runMcp',
        (_args: [], raw: McpRaw, inv: Invocation): McpOptions => parseMcpOptions(raw, inv.globals.tenants?.patterns),
        { self: true },
      ),
    );
}
