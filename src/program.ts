import { option, SvcadmCommand } from './cli/command.js';
import { commandWord } from './cli/command-word.js';
import { type GroupActions, Host } from './cli/host.js';
import { registerApiCommand } from './commands/api/register.js';
import { registerAuthCommands } from './commands/auth/register.js';
import { addHelpAsJson, registerCommandsCommand } from './commands/commands/register.js';
import { registerCompletionCommands } from './commands/completion/register.js';
import { registerConnectionsCommands } from './commands/connections/register.js';
import { registerDiffCommand } from './commands/diff/register.js';
import { registerEmulatorCommand } from './commands/emulator/register.js';
import { registerEventsCommands } from './commands/events/register.js';
import { registerMcpCommand } from './commands/mcp/register.js';
import { registerPoliciesCommands } from './commands/policies/register.js';
import { registerProfilesCommands } from './commands/profiles/register.js';
import { registerProvisioningsCommands } from './commands/provisionings/register.js';
import { registerSnapshotCommand } from './commands/snapshot/register.js';
import { registerUsersCommands } from './commands/users/register.js';
import { PROFILE_VARIABLE, CREDENTIAL_VARIABLES as V } from './config/credential-variables.js';
import { ASSERTION_ALGORITHMS } from './config/credentials.js';
import type { Context } from './context.js';
import { EXIT_CODE_SUMMARY } from './error-codes.js';
import {
  ACCESSIBLE_VARIABLE,
  DEFAULT_MAX_RETRIES,
  DEFAULT_PARALLEL,
  type Globals,
  OUTPUT_FORMATS,
  PROFILES_VARIABLE,
  parseGlobals,
  type RawGlobalOptions,
} from './global-options.js';
import { addCommandHelp, helpConfiguration, helpWidth } from './help/command-help.js';
import { environmentLines, TENANT_ENVIRONMENT } from './help/environment.js';
import { wrapHelp } from './help/wrap.js';
import { Redactor } from './io/redaction.js';
import { packageVersion } from './version.js';

/** Exit-code lines fit the narrowest help (60 columns) as they are, as the environment's do. */
const EXIT_LINE_WIDTH = 58;

/**
 * The exit codes under their heading, packed into lines that the help wrapper never has to break (piped help is 80
 * columns, the narrowest 60): a code is never parted from its meaning.
 */
function exitCodesHelp(): string {
  const entries = EXIT_CODE_SUMMARY.replace(/^Exit codes: /, '').split(/,\s*/);
  const lines: string[] = [];
  for (const entry of entries) {
    const last = lines.length - 1;
    const joined = `${lines[last] ?? ''}, ${entry}`;
    if (last >= 0 && joined.length + 1 <= EXIT_LINE_WIDTH) lines[last] = joined;
    else lines.push(`  ${entry}`);
  }
  return `Exit codes:\n${lines.map((line, i) => (i < lines.length - 1 ? `${line},` : line)).join('\n')}`;
}

const ENVIRONMENT = `
Environment:
${environmentLines(TENANT_ENVIRONMENT).join('\n')}

${exitCodesHelp()}`;

interface CommandEntry {
  /** The root's commands that `register` adds. */
  readonly names: readonly string[];
  readonly register: (program: SvcadmCommand, host: Host) => void;
  /**
   * A run that names it builds only it: registering every command is most of the tree's cost, a few ms of each start
   * (docs/decisions/2026-11-24-register-only-the-named-command.md). Not for the commands that read the whole tree.
   */
  readonly alone: boolean;
}

/**
 * A group of commands: `register` declares them on the tree; `load` brings the group's run code (its `run.ts`, a
 * chunk of its own), when one of them runs and only then.
 */
function group<M>(
  names: readonly string[],
  register: (program: SvcadmCommand, actions: GroupActions<M>) => void,
  load: () => Promise<M>,
  alone = true,
): CommandEntry {
  return { names, alone, register: (program, host) => register(program, host.group(load)) };
}

/** The root's commands, in the order help lists them. */
const COMMANDS: readonly CommandEntry[] = [
  group(['profiles'], registerProfilesCommands, () => import('./commands/profiles/run.js')),
  group(['auth'], registerAuthCommands, () => import('./commands/auth/run.js')),
  group(['policies'], registerPoliciesCommands, () => import('./commands/policies/run.js')),
  group(['events'], registerEventsCommands, () => import('./commands/events/run.js')),
  group(['provisionings'], registerProvisioningsCommands, () => import('./commands/provisionings/run.js')),
  group(['users'], registerUsersCommands, () => import('./commands/users/run.js')),
  group(['connections'], registerConnectionsCommands, () => import('./commands/connections/run.js')),
  group(['snapshot'], registerSnapshotCommand, () => import('./commands/snapshot/run.js')),
  group(['diff'], registerDiffCommand, () => import('./commands/diff/run.js')),
  group(['api'], registerApiCommand, () => import('./commands/api/run.js')),
  group(['mcp'], registerMcpCommand, () => import('./commands/mcp/run.js'), false),
  group(['emulator'], registerEmulatorCommand, () => import('./commands/emulator/run.js')),
  group(['completion', '__complete'], registerCompletionCommands, () => import('./commands/completion/run.js'), false),
  group(['commands'], registerCommandsCommand, () => import('./commands/commands/run.js'), false),
];

/**
 * The commander tree; given the line (`argv`), only the command it names may be registered (see CommandEntry). The
 * global options are parsed once, when the root hands over to a command (commander has read them wherever they stand
 * on the line by then), and given to `onGlobals` for `main` to hold.
 */
export function buildProgram(
  ctx: Context,
  onGlobals: (globals: Globals) => void = () => {},
  secrets: Redactor = new Redactor(),
  argv?: readonly string[],
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
      // Help is wrapped to the terminal here, so that no word is broken whatever wrote it (help/wrap.ts).
      writeOut: (text) => io.stdout.write(wrapHelp(text, helpWidth(io.stdout))),
      writeErr: (text) => io.stderr.write(wrapHelp(text, helpWidth(io.stderr))),
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
      // Help is plain text; asking the stream would also make Node warn about NO_COLOR with FORCE_COLOR.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .configureHelp(helpConfiguration(program))
    .showSuggestionAfterError(true)
    .addOption(
      option('-p, --profile <name>', 'use a named profile')
        .completes({ kind: 'profiles' })
        .environmentVariable(PROFILE_VARIABLE),
    )
    .addOption(
      option(
        '--profiles <patterns>',
        "run across these profiles: comma-separated names or globs ('prod-*', '*'), each as a unit",
      )
        .completes({ kind: 'profiles' })
        .environmentVariable(PROFILES_VARIABLE),
    )
    .addOption(
      option('--parallel <n>', 'with --profiles: at most this many tenants at once').defaultIs(
        String(DEFAULT_PARALLEL),
      ),
    )
    .option('--fail-fast', "with --profiles: stop the other tenants at the first tenant's failure")
    .addOption(
      option('--domain <domain>', 'tenant domain, host:port or https://host[:port]').environmentVariable(V.domain),
    )
    .addOption(option('--client-id <id>', 'OAuth client id (client credentials)').environmentVariable(V.clientId))
    .addOption(
      option(
        '--client-secret <secret>',
        `client secret (prefer ${V.clientSecret}: the command line leaks)`,
      ).environmentVariable(V.clientSecret),
    )
    .addOption(
      option(
        '--client-assertion-key <pem>',
        'sign token requests with this private key instead of a secret (mode 0600)',
      )
        .completes({ kind: 'file' })
        .environmentVariable(V.clientAssertionKey),
    )
    .addOption(
      option('--client-assertion-alg <alg>', 'algorithm of the private key (default RS256)')
        .choices(ASSERTION_ALGORITHMS)
        .environmentVariable(V.clientAssertionAlg),
    )
    .addOption(option('--token <jwt>', 'use this bearer token as it is').environmentVariable(V.token))
    .addOption(
      option('--auth-url <url>', "origin of the token service (default: the tenant's)").environmentVariable(V.authUrl),
    )
    .addOption(option('--audience <aud>', 'token audience (default: <tenant>/api/v2/)').environmentVariable(V.audience))
    .addOption(
      option(
        '-o, --output <format>',
        'table, wide (every column, nothing cut), json, yaml, ndjson or raw (strings bare, as jq -r) (default: table on a terminal, else json)',
      ).choices(OUTPUT_FORMATS),
    )
    .option('--json', 'same as -o json')
    .option('--query <jmespath>', 'reshape the JSON result with a JMESPath expression (json, yaml, ndjson per item)')
    .option('--no-headers', 'tables without their heading line (table, wide)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .addOption(
      option(
        '--accessible',
        'for screen readers: no live view or redraws, plain progress and status lines, questions in words',
      ).environmentVariable(ACCESSIBLE_VARIABLE),
    )
    .option('-q, --quiet', 'no progress or notices on stderr')
    .option('--debug', 'trace HTTP exchanges on stderr (secrets redacted)')
    .addOption(
      option('--max-retries <n>', 'retries for 429, 5xx and network failures (default 5)').defaultIs(
        String(DEFAULT_MAX_RETRIES),
      ),
    )
    .addOption(option('--timeout <duration>', 'per-request time limit (default 30s)').defaultIs('30s'))
    .addHelpText('after', `${ENVIRONMENT}\n\nRun 'svcadm <command> --help' for a command's options and examples.\n`)
    .hook('preSubcommand', async () => {
      globals = await parseGlobals(program.opts<RawGlobalOptions>(), ctx.env, io);
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
  const named = argv && commandWord(program, argv);
  const alone = COMMANDS.find((entry) => entry.alone && entry.names.includes(named ?? ''));
  if (alone) alone.register(program, host);
  // The whole tree when the line names no command of its own (help, a typo to suggest for) or one that walks it.
  if (!alone || !program.commands.some((command) => command.name() === named)) {
    for (const entry of COMMANDS) if (entry !== alone) entry.register(program, host);
  }
  addCommandHelp(program);
  addHelpAsJson(program, host);
  return program;
}
