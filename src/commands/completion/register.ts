import { examples, type SvcadmCommand } from '../../cli/command.js';
import { Argument } from '../../cli/commander.js';
import type { GroupActions } from '../../cli/host.js';
import { SHELLS, type Shell } from '../../completion/shells.js';
import { COMPLETION_ENV } from '../../help/environment.js';
import type * as Run from './run.js';

export function registerCompletionCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .environment([COMPLETION_ENV])
    .addHelpText(
      'after',
      examples(
        'source <(svcadm completion bash)        # in ~/.bashrc',
        `svcadm completion zsh > "\${fpath[1]}/_svcadm"`,
        'svcadm completion fish > ~/.config/fish/completions/svcadm.fish',
      ),
    )
    .action(actions.run('runCompletion', ([shell]: [Shell]) => ({ program, shell })));

  // Called by the completion scripts at completion time; must stay cheap (no view, HTTP client or profile store).
  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'profiles')
    .action(actions.run('runComplete', ([what]: [string]) => what));
}
