import { Command, type HelpContext, Option } from 'commander';
import { registerAuthCommands } from './commands/auth.js';
import { registerCompletionCommands } from './commands/completion.js';
import { registerConnectionsCommands } from './commands/connections.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerEventsCommands } from './commands/events.js';
import { registerPoliciesCommands } from './commands/policies.js';
import { registerProfilesCommands } from './commands/profiles.js';
import { registerProvisioningsCommands } from './commands/provisionings.js';
import { registerUsersCommands } from './commands/users.js';
import { UsageError } from './errors.js';
import { addCommandHelp, commandPath, TENANT_ENVIRONMENT } from './help/command-help.js';
import { OUTPUT_FORMATS } from './render/output.js';
import type { Session } from './session.js';
import { packageVersion } from './version.js';

/** Every command of the tree, created through `createCommand`. */
class SvcadmCommand extends Command {
  override createCommand(name?: string): Command {
    return new SvcadmCommand(name);
  }

  /** A group named without a verb shows its help on stdout and succeeds, as gh and kubectl do. */
  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(arg?: HelpContext | ((str: string) => string)): never {
    if (typeof arg === 'function') return super.help(arg);
    return super.help({ ...arg, error: false });
  }

  /**
   * Every usage error commander finds (unknown names, missing or invalid values) becomes ours: on one line, in our
   * voice, naming the help of the command it came from (`see 'svcadm users --help'`), as gh does.
   */
  override error(message: string): never {
    const text = message
      .replace(/^error: /, '')
      .replace(/\s*\n\s*/g, ' ')
      .replace('(Did you mean', '(did you mean');
    throw new UsageError(text, `see '${['svcadm', ...commandPath(this)].join(' ')} --help'`);
  }
}

const ENVIRONMENT = `
Environment:
${TENANT_ENVIRONMENT.join('\n')}

Exit codes: 0 ok, 1 bug, 2 usage, 3 auth, 4 forbidden, 5 not found, 6 rate limited,
  7 network/5xx, 8 rejected by the service, 130 interrupted (Ctrl-C), 143 stopped (SIGTERM)`;

export function buildProgram(session: Session): Command {
  const { io } = session.ctx;
  const program = new SvcadmCommand('svcadm');
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
    .option('-p, --profile <name>', 'use a named profile')
    .option('--domain <domain>', 'tenant domain, host:port or https://host[:port]')
    .option('--client-id <id>', 'OAuth client id (client credentials)')
    .option('--client-secret <secret>', 'client secret (prefer SVCADM_CLIENT_SECRET: the command line leaks)')
    .option('--token <jwt>', 'use this bearer token as it is')
    .option('--auth-url <url>', "origin of the token service (default: the tenant's)")
    .option('--audience <aud>', 'token audience (default: <tenant>/api/v2/)')
    .addOption(
      new Option('-o, --output <format>', 'output format (default: table on a terminal, else json)').choices(
        OUTPUT_FORMATS,
      ),
    )
    .option('--json', 'same as -o json')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('-q, --quiet', 'no progress or notices on stderr')
    .option('--debug', 'trace HTTP exchanges on stderr (secrets redacted)')
    .option('--max-retries <n>', 'retries for 429, 5xx and network failures (default 5)')
    .option('--timeout <duration>', 'per-request time limit (default 30s)')
    .addHelpText('after', `${ENVIRONMENT}\n\nRun 'svcadm <command> --help' for a command's options and examples.\n`);

  registerProfilesCommands(program, session);
  registerAuthCommands(program, session);
  registerPoliciesCommands(program, session);
  registerEventsCommands(program, session);
  registerProvisioningsCommands(program, session);
  registerUsersCommands(program, session);
  registerConnectionsCommands(program, session);
  registerEmulatorCommand(program, session);
  registerCompletionCommands(program, session);
  addCommandHelp(program);
  return program;
}
