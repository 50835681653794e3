import type { Command } from './commander.js';

/**
 * The word that names the root's command in `argv`, found as commander's parser finds it: past the root's options
 * and their values (`-p prod`, `--output=json`, `-qo json`, `-ojson`). Undefined when something comes first that only
 * commander should judge: `--`, `--help`, an option the root does not have.
 */
export function commandWord(root: Command, argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return undefined;
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (arg.startsWith('--')) {
      const name = arg.split('=', 1)[0];
      const option = root.options.find((o) => o.long === name);
      if (!option) return undefined;
      if (name === arg && valueFollows(option, argv[i + 1])) i++;
      continue;
    }
    // Short options: commander reads `-qo json` as -q then -o, and `-ojson` as -o json.
    for (let at = 1; at < arg.length; at++) {
      const option = root.options.find((o) => o.short === `-${arg[at]}`);
      if (!option) return undefined;
      if (option.required || option.optional) {
        if (at === arg.length - 1 && valueFollows(option, argv[i + 1])) i++;
        break;
      }
    }
  }
  return undefined;
}

/** Whether the option takes the next argument as its value: always when required, when optional only a non-option. */
function valueFollows(option: Command['options'][number], next: string | undefined): boolean {
  if (option.required) return true;
  return option.optional && next !== undefined && !(next.length > 1 && next.startsWith('-'));
}
