import type { Argument, Command, Option } from 'commander';
import {
  commandPath,
  type EnvironmentVariable,
  SvcadmCommand,
  SvcadmOption,
  type ValueSpec,
  type ValueType,
} from '../cli/command.js';
import { argumentValueSpecs, CommandTree, optionValueSpec } from '../cli/tree.js';
import { type ErrorCodeEntry, type ExitCodeEntry, errorCodeTable, exitCodeTable } from '../error-codes.js';
import { packageVersion } from '../version.js';
import { environmentOf, examplesOf } from './command-help.js';

/**
 * `svcadm commands --json`: the whole command tree read off commander (the walk help and completion use), enough for
 * a script or an agent to build a valid call without reading help pages.
 */

export interface ArgumentEntry {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  choices: string[] | null;
  /** Values the completion scripts offer (for `api`: methods and the interface's paths). */
  suggestions: string[] | null;
}

export interface OptionEntry {
  /** As declared: `-o, --output <format>`. */
  flags: string;
  /** Every spelling: `["-o", "--output"]`. */
  names: string[];
  description: string;
  /** `boolean` for a flag that takes no value; otherwise what the value is (all values are given as text). */
  type: 'boolean' | ValueType;
  /** The value's placeholder (`format`), null for a flag. */
  value_name: string | null;
  choices: string[] | null;
  /** Comma-separated values from `choices` (`--type user.created,user.deleted`). */
  list: boolean;
  /** The default as it would be typed, null when there is none or it depends on the situation (see description). */
  default: string | null;
  /** May be given more than once. */
  repeatable: boolean;
  /** A `--no-…` flag. */
  negates: boolean;
  /** The environment variable svcadm reads when the option is not given. */
  env: string | null;
  /** The command cannot run without it (exit 2, nothing sent). */
  required: boolean;
}

export interface EnvironmentEntry {
  names: string[];
  description: string;
}

export interface CommandEntry {
  /** The words after `svcadm`: `users permissions`. */
  command: string;
  description: string;
  usage: string;
  arguments: ArgumentEntry[];
  /** Own options; the global options (`global_options`) are valid with every command. */
  options: OptionEntry[];
  environment: EnvironmentEntry[];
  examples: string[];
  /** It changes or removes data on the service: off a terminal, and for an agent, it needs --yes. */
  destructive: boolean;
  /** It never returns by itself: only a limit given to it (`--duration`, `--max-events`) or a signal stops it. */
  streaming: boolean;
  /** Subcommands: a group (`users`) runs only through one of them. */
  commands: CommandEntry[];
}

export interface Catalog {
  name: string;
  version: string;
  description: string;
  usage: string;
  global_options: OptionEntry[];
  exit_codes: ExitCodeEntry[];
  /** svcadm's own `code`s of the JSON error envelope; a service error carries the service's `errorCode` instead. */
  error_codes: ErrorCodeEntry[];
  commands: CommandEntry[];
}

const PLACEHOLDER = /[<[]([^>\]]+)[>\]]/;

/** By convention the placeholder names what a value is (`--take <n>`, `--timeout <duration>`). */
const PLACEHOLDER_TYPES: Readonly<Record<string, ValueType>> = {
  n: 'integer',
  duration: 'duration',
  d: 'duration',
  time: 'time',
  path: 'path',
  file: 'path',
  url: 'url',
};

function valueTypeOf(spec: ValueSpec, placeholder: string): ValueType {
  if (spec.kind === 'file') return 'path';
  return PLACEHOLDER_TYPES[placeholder] ?? 'string';
}

function valueSuggestions(spec: ValueSpec | undefined): string[] | null {
  return spec && (spec.kind === 'choices' || spec.kind === 'list') ? [...spec.values] : null;
}

function optionEntry(option: Option): OptionEntry {
  const ours = option instanceof SvcadmOption ? option : undefined;
  const spec = optionValueSpec(option);
  const placeholder = PLACEHOLDER.exec(option.flags)?.[1] ?? 'value';
  const declaredDefault = option.defaultValue === undefined ? ours?.defaultText : String(option.defaultValue);
  return {
    flags: option.flags,
    names: [option.short, option.long].filter((n): n is string => n !== undefined),
    description: option.description,
    type: spec === undefined ? 'boolean' : valueTypeOf(spec, placeholder),
    value_name: spec === undefined ? null : placeholder,
    choices: option.argChoices ? [...option.argChoices] : valueSuggestions(spec),
    list: spec?.kind === 'list',
    default: declaredDefault ?? null,
    repeatable: ours?.repeatable ?? false,
    negates: option.negate,
    env: ours?.environmentName ?? null,
    required: option.mandatory,
  };
}

function argumentEntry(argument: Argument, spec: ValueSpec | undefined): ArgumentEntry {
  return {
    name: argument.name(),
    description: argument.description,
    required: argument.required,
    variadic: argument.variadic,
    choices: argument.argChoices ? [...argument.argChoices] : null,
    suggestions: argument.argChoices ? null : valueSuggestions(spec),
  };
}

function environmentEntry(variable: EnvironmentVariable): EnvironmentEntry {
  return { names: [...variable.names], description: variable.description };
}

function usageOf(command: Command): string {
  return ['svcadm', ...commandPath(command), command.usage()].join(' ');
}

/** A command's entry, its subcommands within. */
export function commandEntry(command: Command, tree = new CommandTree()): CommandEntry {
  const specs = argumentValueSpecs(command);
  const isGroup = tree.subcommands(command).length > 0;
  return {
    command: commandPath(command).join(' '),
    description: command.description(),
    usage: usageOf(command),
    arguments: command.registeredArguments.map((a, i) => argumentEntry(a, specs[i])),
    options: command.parent === null ? [] : tree.options(command).map(optionEntry),
    environment: isGroup ? [] : environmentOf(command).map(environmentEntry),
    examples: examplesOf(command),
    destructive: command instanceof SvcadmCommand && command.isDestructive,
    streaming: command instanceof SvcadmCommand && command.isStreaming,
    commands: tree.subcommands(command).map((c) => commandEntry(c, tree)),
  };
}

/** The whole tree, with the global options and the exit codes every command shares. */
export function catalogOf(program: Command): Catalog {
  const tree = new CommandTree();
  return {
    name: program.name(),
    version: packageVersion(),
    description: program.description(),
    usage: 'svcadm [global options] <command> [arguments] [options]',
    global_options: tree.options(program).map(optionEntry),
    exit_codes: exitCodeTable(),
    error_codes: errorCodeTable(),
    commands: tree.subcommands(program).map((c) => commandEntry(c, tree)),
  };
}

/** The tree for people: one line per command, its arguments and what it does. */
export function catalogText(catalog: Catalog): string {
  const lines: string[] = [];
  const walk = (entries: readonly CommandEntry[], depth: number) => {
    for (const entry of entries) {
      const name = entry.command.split(' ').slice(-1)[0] ?? '';
      const args = entry.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
      lines.push(`${'  '.repeat(depth)}${[name, args].filter(Boolean).join(' ')}\u0000${entry.description}`);
      walk(entry.commands, depth + 1);
    }
  };
  walk(catalog.commands, 0);
  const width = Math.max(...lines.map((l) => l.indexOf('\u0000')));
  const body = lines.map((l) => {
    const [left = '', right = ''] = l.split('\u0000');
    return `  ${left.padEnd(width)}  ${right}`;
  });
  return `${catalog.description}\n\nCommands:\n${body.join('\n')}\n\nRun 'svcadm <command> --help' for a command's options and examples, 'svcadm commands --json' for all of it as JSON.\n`;
}
