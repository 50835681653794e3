import { type Command, Help, type Option } from 'commander';
import { SvcadmCommand, SvcadmOption, type ValueSpec } from '../cli/command.js';

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
  /** The value of the first positional argument, when it is not a subcommand. */
  argument: ValueSpec | undefined;
  /** commander's implicit `help [command]` exists at this level. */
  helpCommand: boolean;
}

/** The hidden command the generated scripts call back into for values only known at completion time. */
export const DYNAMIC_COMMAND = '__complete';

function optionSpec(option: Option): OptionSpec {
  const names = [option.short, option.long].filter((n): n is string => n !== undefined);
  const takesValue = option.required || option.optional;
  let value: ValueSpec | undefined;
  if (takesValue) {
    value =
      (option instanceof SvcadmOption ? option.completion : undefined) ??
      (option.argChoices ? { kind: 'choices', values: [...option.argChoices] } : { kind: 'any' });
  }
  return { names, description: option.description, value };
}

function argumentSpec(command: Command): ValueSpec | undefined {
  const first = command.registeredArguments[0];
  if (!first) return undefined;
  const declared = command instanceof SvcadmCommand ? command.argumentCompletion : undefined;
  return declared ?? (first.argChoices ? { kind: 'choices', values: [...first.argChoices] } : { kind: 'any' });
}

function commandSpec(command: Command, path: string[], help: Help, isRoot: boolean): CommandSpec {
  // commander's implicit help command is not in `commands`; svcadm's own (`help [command...]`) is.
  const visible = help.visibleCommands(command);
  const isHelp = (c: Command): boolean => c.name() === 'help';
  const options = help
    .visibleOptions(command)
    // `--version` is the root's only; `--help` is everyone's, so the root lists it as a global.
    .filter((o) => isRoot || o.long !== '--help')
    .map(optionSpec);
  return {
    name: command.name(),
    path,
    description: command.description(),
    options,
    commands: visible
      .filter((c) => command.commands.includes(c) && !isHelp(c))
      .map((c) => commandSpec(c, [...path, c.name()], help, false)),
    argument: argumentSpec(command),
    helpCommand: visible.some(isHelp),
  };
}

/** The completion model of a commander program: visible commands and options, with the values they accept. */
export function completionModel(program: Command): CommandSpec {
  return commandSpec(program, [], new Help(), true);
}

/** Every command of the model, depth first, root included. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

/** Root options valid after a subcommand too (all but `--version`). */
export function globalOptions(root: CommandSpec): OptionSpec[] {
  return root.options.filter((o) => !o.names.includes('--version'));
}
