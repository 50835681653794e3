/**
 * The one warning for a secret given as a command-line flag (`--client-secret`, `--forward-secret`): other users of
 * the machine can read it in the process list, and it stays in the shell's history. `instead` is the safer way.
 */
export function secretFlagWarning(flag: string, instead: string): string {
  return `${flag} leaks into shell history and the process list; prefer ${instead}`;
}
