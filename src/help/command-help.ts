import type { EventEmitter } from 'node:events';
import type { HelpConfiguration } from 'commander';
import { type EnvironmentVariable, SvcadmCommand } from '../cli/command.js';
import { type Argument, type Command, Help, type Option } from '../cli/commander.js';
import type { OutStream } from '../context.js';
import { UsageError } from '../errors.js';
import { environmentLines, TENANT_ENVIRONMENT } from './environment.js';

/** Help is wrapped to a terminal's width; 80 columns elsewhere. */
export function helpWidth(stream: OutStream): number {
  return stream.isTTY === true && stream.columns ? stream.columns : 80;
}

/** Below a command's own options, one line pointing at the global ones (gh's "INHERITED FLAGS", compactly). */
const GLOBAL_OPTIONS_LINE = 'Global options (svcadm --help): -p, --domain, -o, --query, …';

/**
 * commander's help, in our voice: an option's or argument's choices are in its own description (commander would add
 * `(choices: "table", …)`), and below a command's options one line points at the global options instead of
 * repeating all of them.
 */
export function helpConfiguration(program: Command): HelpConfiguration {
  const withoutChoices = <T extends Option | Argument>(item: T): T =>
    Object.assign(Object.create(item) as T, { argChoices: undefined });
  return {
    optionDescription: (option) => Help.prototype.optionDescription.call(new Help(), withoutChoices(option)),
    argumentDescription: (argument) => Help.prototype.argumentDescription.call(new Help(), withoutChoices(argument)),
    // Commands are listed by name, as gh and kubectl do: their arguments are in their own help, and one long usage
    // (`api [options] <method-or-path> [path]`) would otherwise narrow every description of the list.
    subcommandTerm: (command) => command.name(),
    // A global option a command serves itself (`svcadm mcp --profiles`) is listed with its own, before `--help`.
    visibleOptions(command) {
      const options = Help.prototype.visibleOptions.call(this, command);
      if (!(command instanceof SvcadmCommand) || command.globalOptionsServed.length === 0) return options;
      const help = options.filter((o) => o.long === '--help');
      return [...options.filter((o) => o.long !== '--help'), ...command.globalOptionsServed, ...help];
    },
    formatHelp(command, helper) {
      const text = Help.prototype.formatHelp.call(helper, command, helper);
      return command === program ? text : `${text.replace(/\n*$/, '\n')}\n${GLOBAL_OPTIONS_LINE}\n`;
    },
  };
}

/** The text a command adds after its help (its examples), captured instead of printed. */
function afterHelpText(command: Command): string {
  let text = '';
  // A Command is an EventEmitter at run time (its typings leave that out); addHelpText listens for this event.
  (command as unknown as EventEmitter).emit('afterHelp', { error: false, command, write: (s: string) => (text += s) });
  return text;
}

/** The examples a command's help shows (`svcadm policies get rlp_01HZX3`), without the `$ ` prompt. */
export function examplesOf(command: Command): string[] {
  return afterHelpText(command)
    .split('\n')
    .filter((line) => line.startsWith('  $ '))
    .map((line) => line.slice(4));
}

/** The environment variables a command reads: declared on it, else the tenant's. */
export function environmentOf(command: Command): readonly EnvironmentVariable[] {
  return (command instanceof SvcadmCommand ? command.environmentVariables : undefined) ?? TENANT_ENVIRONMENT;
}

function firstExample(command: Command): string | undefined {
  const own = examplesOf(command)[0];
  return own === undefined ? command.commands.map(firstExample).find((e) => e !== undefined) : `  $ ${own}`;
}

/** A group's examples: the first one of each of its commands. */
function groupExamples(group: Command): string {
  const lines = group.commands.map(firstExample).filter((e): e is string => e !== undefined);
  return lines.length ? `\nExamples:\n${lines.join('\n')}\n` : '';
}

function environmentSection(command: Command): string {
  const lines = environmentLines(environmentOf(command));
  if (lines.length === 0) return '';
  const gap = afterHelpText(command).endsWith('\n\n') ? '' : '\n';
  return `${gap}Environment:\n${lines.join('\n')}\n`;
}

/** The command at the end of `names` (`['policies', 'get']`), or a usage error naming the first unknown one. */
function findCommand(program: Command, names: readonly string[]): Command {
  let command = program;
  for (const name of names) {
    const next = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!next) throw new UsageError(`unknown command '${names.join(' ')}'`, "see 'svcadm --help'");
    command = next;
  }
  return command;
}

/**
 * `svcadm help <command path>`, which commander's own help command does not resolve beyond the first name.
 * Then every command's help is completed, whenever the command was added: a group lists one example per command,
 * a command names the environment variables it reads (after its own examples). The root has its own sections.
 */
export function addCommandHelp(program: SvcadmCommand): void {
  program
    .command('help')
    .description('show help for a command')
    .argument('[command...]', 'the command, e.g. policies get')
    .environment([])
    .addHelpText('after', '\nExamples:\n  $ svcadm help policies get\n')
    .action((names: string[]) => {
      findCommand(program, names).help();
    });
  program.addHelpText('afterAll', ({ command }) => {
    if (command === program) return '';
    const group = command.commands.length > 0 && !(command instanceof SvcadmCommand && command.runsItself);
    return group ? groupExamples(command) : environmentSection(command);
  });
}
