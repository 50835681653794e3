import type { SvcadmCommand } from '../../cli/command.js';
import type { Invocation } from '../../cli/host.js';
import type { Shell } from '../../completion/shells.js';
import { readProfiles } from '../../config/profile-store.js';

/** `svcadm completion <shell>`: the script that completes `program`'s tree. */
export async function runCompletion(
  inv: Invocation,
  { program, shell }: { program: SvcadmCommand; shell: Shell },
): Promise<void> {
  // The generator is a chunk of its own: `__complete`, run at every Tab, does not load it.
  const { completionScript } = await import('../../completion/index.js');
  await inv.io.write(completionScript(program, shell));
}

/** `svcadm __complete <what>`, asked by the completion scripts at completion time. */
export async function runComplete(inv: Invocation, what: string): Promise<void> {
  if (what === 'profiles') await inv.io.write(profileNames(inv.services.configDir));
}

function profileNames(dir: string): string {
  try {
    const names = Object.keys(readProfiles(dir).profiles).sort();
    return names.map((n) => `${n}\n`).join('');
  } catch {
    return ''; // an unreadable store completes nothing rather than printing an error into the prompt
  }
}
