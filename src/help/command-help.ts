import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';
import { SvcadmCommand } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { type EnvironmentVariable, environmentLines, TENANT_ENVIRONMENT } from './environment.js';

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
    return command.commands.length ? groupExamples(command) : environmentSection(command);
  });
}
