import { Argument, type Command } from 'commander';
import { SHELLS, type Shell } from '../completion/shells.js';
import { configDir } from '../config/paths.js';
import { readProfiles } from '../config/profile-store.js';
import type { Context } from '../context.js';
import { examples, type Session } from '../session.js';

export function registerCompletionCommands(program: Command, session: Session): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      examples(
        'source <(svcadm completion bash)        # in ~/.bashrc',
        `svcadm completion zsh > "\${fpath[1]}/_svcadm"`,
        'svcadm completion fish > ~/.config/fish/completions/svcadm.fish',
      ),
    )
    .action(async (shell: Shell, _opts: object, command: Command) => {
      const root = command.parent ?? command;
      const { completionScript } = await import('../completion/index.js');
      session.ctx.io.stdout.write(completionScript(root, shell));
    });

  // Called by the completion scripts at completion time; must stay cheap (no Ink, HTTP client or conf).
  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'profiles')
    .action((what: string) => {
      if (what === 'profiles') session.ctx.io.stdout.write(profileNames(session.ctx));
    });
}

function profileNames(ctx: Context): string {
  try {
    const names = Object.keys(readProfiles(configDir(ctx.env)).profiles).sort();
    return names.map((n) => `${n}\n`).join('');
  } catch {
    return ''; // an unreadable store completes nothing rather than printing an error into the prompt
  }
}
