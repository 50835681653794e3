import { option, SvcadmCommand } from './cli/command.js';
import { Host } from './cli/host.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerCompletionCommands } from './commands/completion.js';
import { registerConnectionsCommands } from './commands/connections.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerEventsCommands } from './commands/events.js';
import { registerPoliciesCommands } from './commands/policies.js';
import { registerProfilesCommands } from './commands/profiles.js';
import { registerProvisioningsCommands } from './commands/provisionings.js';
import { registerUsersCommands } from './commands/users.js';
import type { Context } from './context.js';
import { EXIT_CODE_SUMMARY } from './errors.js';
import { type Globals, OUTPUT_FORMATS, parseGlobals, type RawGlobalOptions } from './global-options.js';
import { addCommandHelp } from './help/command-help.js';
import { TENANT_ENVIRONMENT } from './help/environment.js';
import { Redactor } from './io/redaction.js';
import { packageVersion } from './version.js';

const ENVIRONMENT = `
Environment:
${TENANT_ENVIRONMENT.join('\n')}

${EXIT_CODE_SUMMARY}`;

/**
 * The commander tree. The global options are parsed once, when the root hands over to a command (commander has read
 * them wherever they stand on the line by then), and given to `onGlobals` for `main` to hold.
 */
export function buildProgram(
  ctx: Context,
  onGlobals: (globals: Globals) => void = () => {},
  secrets: Redactor = new Redactor(),
): SvcadmCommand {
  const { io } = ctx;
  const program = new SvcadmCommand('svcadm');
  let globals: Globals | undefined;
  program
    .description('Administer an identity service tenant through its management interface')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride() // --help and --version end by throwing, for main to return 0
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .addOption(option('-p, --profile <name>', 'use a named profile').completes({ kind: 'profiles' }))
    .option('--domain <domain>', 'tenant domain, host:port or https://host[:port]')
    .option('--client-id <id>', 'OAuth client id (client credentials)')
    .option('--client-secret <secret>', 'client secret (prefer SVCADM_CLIENT_SECRET: the command line leaks)')
    .option('--token <jwt>', 'use this bearer token as it is')
    .option('--auth-url <url>', "origin of the token service (default: the tenant's)")
    .option('--audience <aud>', 'token audience (default: <tenant>/api/v2/)')
    .addOption(
      option('-o, --output <format>', 'output format (default: table on a terminal, else json)').choices(
        OUTPUT_FORMATS,
      ),
    )
    .option('--json', 'same as -o json')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-q, --quiet', 'no progress or notices on stderr')
    .option('--debug', 'trace HTTP exchanges on stderr (secrets redacted)')
    .option('--max-retries <n>', 'retries for 429, 5xx and network failures (default 5)')
    .option('--timeout <duration>', 'per-request time limit (default 30s)')
    .addHelpText('after', `${ENVIRONMENT}\n\nRun 'svcadm <command> --help' for a command's options and examples.\n`)
    .hook('preSubcommand', () => {
      globals = parseGlobals(program.opts<RawGlobalOptions>(), ctx.env, io);
      onGlobals(globals);
    });

  const host = new Host(
    ctx,
    () => {
      if (!globals) throw new Error('a command ran before the global options were parsed');
      return globals;
    },
    secrets,
  );
  registerProfilesCommands(program, host);
  registerAuthCommands(program, host);
  registerPoliciesCommands(program, host);
  registerEventsCommands(program, host);
  registerProvisioningsCommands(program, host);
  registerUsersCommands(program, host);
  registerConnectionsCommands(program, host);
  registerEmulatorCommand(program, host);
  registerCompletionCommands(program, host);
  addCommandHelp(program);
  return program;
}
