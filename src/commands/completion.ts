import { examples, type SvcadmCommand } from '../cli/command.js';
import { Argument } from '../cli/commander.js';
import type { Host } from '../cli/host.js';
import { SHELLS, type Shell } from '../completion/shells.js';
import { readProfiles } from '../config/profile-store.js';
import { COMPLETION_ENV } from '../help/environment.js';

export function registerCompletionCommands(program: SvcadmCommand, host: Host): void {
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
    .action(
      host.action<[Shell], object>(async (inv, [shell]) => {
        const { completionScript } = await import('../completion/index.js');
        await inv.io.write(completionScript(program, shell));
      }),
    );

  // Called by the completion scripts at completion time; must stay cheap (no view, HTTP client or profile store).
  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'profiles')
    .action(
      host.action<[string], object>(async (inv, [what]) => {
        if (what === 'profiles') await inv.io.write(profileNames(inv.services.configDir));
      }),
    );
}

function profileNames(dir: string): string {
  try {
    const names = Object.keys(readProfiles(dir).profiles).sort();
    return names.map((n) => `${n}\n`).join('');
  } catch {
    return ''; // an unreadable store completes nothing rather than printing an error into the prompt
  }
}
