import type { Env } from '../context.js';
import type { Globals } from '../global-options.js';
import { neutralize } from '../text/sanitize.js';
import { shellWord } from '../util/shell-word.js';

/** Turns the words of a command (`['events', 'tail', '--from', cursor]`) into a line the user can paste. */
export type PasteHint = (words: readonly string[]) => string;

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/**
 * The global options that chose the tenant and the output of this run, for every line svcadm prints to be pasted
 * (cli.md, "Hints are complete commands"): `-p` and `--domain` as given; a profile or domain chosen through
 * `SVCADM_PROFILE` or `SVCADM_DOMAIN` as the flag (an environment set for one command is not in what one pastes);
 * else the profile the credentials came from (so that a later `profiles use` cannot redirect the line); then `-o`,
 * `--json`, `--query` as given.
 */
export function pinnedOptions(
  globals: Pick<Globals, 'credentials' | 'outputArgs'>,
  env: Env,
  profileUsed: string | undefined,
): string[] {
  const { profile, domain } = globals.credentials;
  const chosenProfile = profile ?? (isSet(env.SVCADM_PROFILE) ? env.SVCADM_PROFILE : undefined);
  const options: string[] = [];
  if (chosenProfile !== undefined) options.push('-p', chosenProfile);
  if (domain !== undefined) options.push('--domain', domain);
  else if (chosenProfile === undefined && isSet(env.SVCADM_DOMAIN)) options.push('--domain', env.SVCADM_DOMAIN);
  else if (chosenProfile === undefined && profileUsed !== undefined) options.push('-p', profileUsed);
  return [...options, ...globals.outputArgs];
}

/**
 * `svcadm <pinned options> <words>`, every word neutralised (no control character or escape from the service reaches
 * the terminal) and quoted for bash, zsh and fish (no `$(…)`, backtick or glob can run when pasted).
 */
export function pasteHint(pinned: readonly string[]): PasteHint {
  return (words) => ['svcadm', ...[...pinned, ...words].map((word) => shellWord(neutralize(word)))].join(' ');
}
