import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';

const CREDENTIALS =
  '  SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET, SVCADM_TOKEN,\n' +
  '  SVCADM_AUTH_URL, SVCADM_AUDIENCE   stand in for the flags of the same name';
const PROFILE = '  SVCADM_PROFILE                     stands in for -p, --profile';
const STORE = '  SVCADM_CONFIG_DIR                  folder of the profile store and token cache';
const COLOUR = '  NO_COLOR, FORCE_COLOR              colour on terminals';
const COLOUR_PROGRESS = '  NO_COLOR, FORCE_COLOR, CI          colour and progress on terminals';

/** What every command that talks to the tenant reads; the root's help lists it too. */
export const TENANT_ENVIRONMENT: readonly string[] = [CREDENTIALS, STORE, COLOUR_PROGRESS];

/** Environment variables a command reads, by command path; a command not listed talks to the tenant. */
const ENVIRONMENT: Readonly<Record<string, readonly string[]>> = {
  'profiles add': [STORE, COLOUR],
  'profiles list': [STORE, COLOUR],
  'profiles use': [STORE],
  'profiles show': [PROFILE, STORE, COLOUR],
  'profiles remove': [STORE],
  completion: ['  SVCADM_CONFIG_DIR                  profile names are completed from the store here'],
  emulator: [],
  help: [],
};

/** The names from the root down to `command`, the root's own excluded (`['users', 'permissions']`). */
export function commandPath(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** The text a command adds after its help (its examples), captured instead of printed. */
function afterHelpText(command: Command): string {
  let text = '';
  // A Command is an EventEmitter at run time (its typings leave that out); addHelpText listens for this event.
  (command as unknown as EventEmitter).emit('afterHelp', { error: false, command, write: (s: string) => (text += s) });
  return text;
}

function firstExample(command: Command): string | undefined {
  const own = afterHelpText(command)
    .split('\n')
    .find((line) => line.startsWith('  $ '));
  return own ?? command.commands.map(firstExample).find((e) => e !== undefined);
}

/** A group's examples: the first one of each of its commands. */
function groupExamples(group: Command): string {
  const lines = group.commands.map(firstExample).filter((e): e is string => e !== undefined);
  return lines.length ? `\nExamples:\n${lines.join('\n')}\n` : '';
}

function environmentSection(command: Command): string {
  const lines = ENVIRONMENT[commandPath(command).join(' ')] ?? TENANT_ENVIRONMENT;
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
export function addCommandHelp(program: Command): void {
  program
    .command('help')
    .description('show help for a command')
    .argument('[command...]', 'the command, e.g. policies get')
    .addHelpText('after', '\nExamples:\n  $ svcadm help policies get\n')
    .action((names: string[]) => {
      findCommand(program, names).help();
    });
  program.addHelpText('afterAll', ({ command }) => {
    if (command === program) return '';
    return command.commands.length ? groupExamples(command) : environmentSection(command);
  });
}
