import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel } from './model.js';
import type { Shell } from './shells.js';
import { zshScript } from './zsh.js';

/** The completion script for `shell`, generated from the commander tree of `program`. */
export function completionScript(program: Command, shell: Shell): string {
  const model = completionModel(program);
  if (shell === 'bash') return bashScript(model);
  if (shell === 'zsh') return zshScript(model);
  return fishScript(model);
}
