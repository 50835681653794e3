import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions, Host } from '../../cli/host.js';
import { errorViewOf, type RawGlobalOptions } from '../../global-options.js';
import { catalogOf, commandEntry } from '../../help/catalog.js';
import { COLOUR_ENV } from '../../help/environment.js';
import { writeHelpEntry } from '../../io/printer.js';
import type * as Run from './run.js';

/**
 * `svcadm commands [--json]`: the command tree read off commander, for people and for scripts and agents that build
 * calls.
 */
export function registerCommandsCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('commands')
    .description('list every command; with --json, every argument, option, exit code and example')
    .environment([COLOUR_ENV])
    .addHelpText(
      'after',
      examples(
        'svcadm commands',
        "svcadm commands --json | jq '.commands[] | .commands[]?.command'",
        'svcadm users permissions --help --json | jq .options',
      ),
    )
    .action(actions.run('runCommands', () => program));
}

/**
 * `--help --json` on any command: its `svcadm commands --json` entry. Set up whichever commands a run registers
 * (the root's own entry needs them all, and a run that asks for it has them all).
 */
export function addHelpAsJson(program: SvcadmCommand, host: Host): void {
  // Help is text for people, for an agent too, unless JSON is asked for: no agent mode here (an empty environment).
  program.helpRenderer = (command) =>
    writeHelpEntry(host.ctx.io.stdout, errorViewOf(program.opts<RawGlobalOptions>(), host.ctx.io, {}), () =>
      command === program ? catalogOf(program) : commandEntry(command),
    );
}
