import type { Command, Option } from 'commander';
import type { ValueSpec } from '../cli/command.js';
import { argumentValueSpecs, CommandTree, optionValueSpec } from '../cli/tree.js';

export type { ValueSpec } from '../cli/command.js';

export interface OptionSpec {
  /** `-o`, `--output`: every spelling. */
  names: string[];
  description: string;
  /** Undefined for a flag that takes no value. */
  value: ValueSpec | undefined;
}

export interface CommandSpec {
  name: string;
  /** Names from the root, e.g. `['events', 'tail']`; empty for the root. */
  path: string[];
  description: string;
  /** Own options; the root's are global and valid at every level. */
  options: OptionSpec[];
  commands: CommandSpec[];
  /** What each positional argument takes (by position), when the command has no subcommands. */
  arguments: ValueSpec[];
  /** commander's implicit `help [command]` exists at this level. */
  helpCommand: boolean;
}

function optionSpec(option: Option): OptionSpec {
  const names = [option.short, option.long].filter((n): n is string => n !== undefined);
  return { names, description: option.description, value: optionValueSpec(option) };
}

function commandSpec(command: Command, path: string[], tree: CommandTree): CommandSpec {
  return {
    name: command.name(),
    path,
    description: command.description(),
    options: tree.options(command).map(optionSpec),
    commands: tree.subcommands(command).map((c) => commandSpec(c, [...path, c.name()], tree)),
    arguments: argumentValueSpecs(command),
    helpCommand: tree.hasHelpCommand(command),
  };
}

/** The completion model of a commander program: visible commands and options, with the values they accept. */
export function completionModel(program: Command): CommandSpec {
  return commandSpec(program, [], new CommandTree());
}

/** Every command of the model, depth first, root included. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

/** Root options valid after a subcommand too (all but `--version`). */
export function globalOptions(root: CommandSpec): OptionSpec[] {
  return root.options.filter((o) => !o.names.includes('--version'));
}
