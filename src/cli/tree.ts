import { SvcadmCommand, SvcadmOption, type ValueSpec } from './command.js';
import { type Argument, type Command, Help, type Option } from './commander.js';

/**
 * The one walk over the commander tree that help, completion and `svcadm commands` share: which commands and options
 * are visible at each level, and what each value accepts.
 */
export class CommandTree {
  readonly #help = new Help();

  /** The visible subcommands, commander's implicit `help` and svcadm's own `help` command left out. */
  subcommands(command: Command): Command[] {
    return this.#help.visibleCommands(command).filter((c) => command.commands.includes(c) && c.name() !== 'help');
  }

  /** Whether `help [command]` exists at this level (commander's implicit one, or svcadm's at the root). */
  hasHelpCommand(command: Command): boolean {
    return this.#help.visibleCommands(command).some((c) => c.name() === 'help');
  }

  /** Own visible options; `--help` is everyone's, so only the root lists it (with the global options). */
  options(command: Command): Option[] {
    const isRoot = command.parent === null;
    const own = this.#help.visibleOptions(command).filter((o) => isRoot || o.long !== '--help');
    return command instanceof SvcadmCommand ? [...own, ...command.globalOptionsServed] : own;
  }
}

/** What an option's value accepts; undefined for a flag that takes no value. */
export function optionValueSpec(option: Option): ValueSpec | undefined {
  if (!option.required && !option.optional) return undefined;
  return (
    (option instanceof SvcadmOption ? option.completion : undefined) ??
    (option.argChoices ? { kind: 'choices', values: [...option.argChoices] } : { kind: 'any' })
  );
}

/** What each positional argument accepts, in order. */
export function argumentValueSpecs(command: Command): ValueSpec[] {
  const declared = command instanceof SvcadmCommand ? command.argumentCompletions : [];
  return command.registeredArguments.map(
    (argument: Argument, i) =>
      declared[i] ?? (argument.argChoices ? { kind: 'choices', values: [...argument.argChoices] } : { kind: 'any' }),
  );
}
