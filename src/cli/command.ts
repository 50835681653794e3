import type { HelpContext } from 'commander';
import { ParserExit, UsageError } from '../errors.js';
import { Command, type CommanderError, Option } from './commander.js';

/** What can be completed where a value is expected. */
export type ValueSpec =
  | { kind: 'any' }
  | { kind: 'choices'; values: readonly string[] }
  /** Comma-separated list of choices (`--type user.created,user.deleted`). */
  | { kind: 'list'; values: readonly string[] }
  /** Profile names, asked of `svcadm __complete profiles` at completion time. */
  | { kind: 'profiles' }
  | { kind: 'file' };

/**
 * What an option's value is, for `svcadm commands --json` (every value arrives as text and is checked by svcadm): by
 * convention its placeholder says it (`<n>`, `<duration>`, `<time>`, `<path>`, `<url>`; see `help/catalog.ts`).
 */
export type ValueType = 'string' | 'integer' | 'duration' | 'time' | 'path' | 'url';

/**
 * An option that also says what completes its value (read by the completion generator) and, for scripts and agents
 * (`svcadm commands --json`), what its value is, its default and the environment variable that stands in for it.
 */
export class SvcadmOption extends Option {
  completion: ValueSpec | undefined;
  /** The default as the help says it, when commander has no default value (it is applied by svcadm). */
  defaultText: string | undefined;
  /** Read by svcadm itself, never by commander (commander's own `env()` would bypass svcadm's precedence rules). */
  environmentName: string | undefined;
  repeatable = false;

  completes(spec: ValueSpec): this {
    this.completion = spec;
    return this;
  }

  defaultIs(text: string): this {
    this.defaultText = text;
    return this;
  }

  environmentVariable(name: string): this {
    this.environmentName = name;
    return this;
  }

  /** May be given more than once; the values (mapped by `map`) arrive as an array, in order. */
  repeated(map: (value: string) => unknown = (value) => value): this {
    this.repeatable = true;
    return this.argParser((value: string, previous: unknown[] | undefined) => [...(previous ?? []), map(value)]);
  }
}

/** An option with metadata; add it with `addOption`. */
export function option(flags: string, description: string): SvcadmOption {
  return new SvcadmOption(flags, description);
}

/** The environment variables a command reads, declared on it with `.environment([...])`: its help lists them. */
export interface EnvironmentVariable {
  readonly names: readonly string[];
  readonly description: string;
}

/** The names from the root down to `command`, the root's own excluded (`['users', 'permissions']`). */
export function commandPath(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** Every command of the tree: its metadata (environment, argument completion) is declared where it is built. */
export class SvcadmCommand extends Command {
  /** Environment variables its help lists; undefined: the tenant's (flags, profile store, colour). */
  environmentVariables: readonly EnvironmentVariable[] | undefined;
  /** What completes each positional argument (by position), when it is not a subcommand. */
  argumentCompletions: ValueSpec[] = [];
  /**
   * Set on the root: shows a command's help another way (its `svcadm commands --json` entry, for `--help --json`),
   * returning false to leave it to commander.
   */
  helpRenderer: ((command: SvcadmCommand) => boolean) | undefined;
  /** It changes or removes data on the service: off a terminal, and for an agent, it needs --yes. */
  isDestructive = false;
  /** It never returns by itself (a stream, a server): it runs until a limit given to it or a signal stops it. */
  isStreaming = false;
  /** It has an action of its own: a command with subcommands that also runs by itself (`svcadm emulator`). */
  runsItself = false;
  /**
   * Global options this command gives a meaning of its own (`svcadm mcp --profiles`), listed among its options in
   * help, completion and `svcadm commands --json`; the root declares and parses them (it takes their values wherever
   * they stand on the line), so they are not commander options of this command.
   */
  readonly globalOptionsServed: SvcadmOption[] = [];

  override action(fn: Parameters<Command['action']>[0]): this {
    this.runsItself = true;
    return super.action(fn);
  }

  override createCommand(name?: string): SvcadmCommand {
    return new SvcadmCommand(name);
  }

  override createOption(flags: string, description?: string): SvcadmOption {
    return new SvcadmOption(flags, description);
  }

  /** The environment variables this command reads, listed in its help. */
  environment(variables: readonly EnvironmentVariable[]): this {
    this.environmentVariables = variables;
    return this;
  }

  /** Lists a global option among this command's own, described as this command reads it (see `globalOptionsServed`). */
  servesGlobalOption(option: SvcadmOption): this {
    this.globalOptionsServed.push(option);
    return this;
  }

  /** Declares that the command changes or removes data (`svcadm commands --json`: `destructive`). */
  destructive(): this {
    this.isDestructive = true;
    return this;
  }

  /** Declares that the command never returns by itself (`svcadm commands --json`: `streaming`). */
  streaming(): this {
    this.isStreaming = true;
    return this;
  }

  completesArgument(spec: ValueSpec, position = 0): this {
    this.argumentCompletions[position] = spec;
    return this;
  }

  override outputHelp(context?: HelpContext): void;
  override outputHelp(cb: (str: string) => string): void;
  override outputHelp(arg?: HelpContext | ((str: string) => string)): void {
    let root: Command = this;
    while (root.parent) root = root.parent;
    if (root instanceof SvcadmCommand && root.helpRenderer?.(this)) return;
    if (typeof arg === 'function') super.outputHelp(arg);
    else super.outputHelp(arg);
  }

  /** A group named without a verb shows its help on stdout and succeeds, as gh and kubectl do. */
  override help(context?: HelpContext): never;
  override help(cb: (str: string) => string): never;
  override help(arg?: HelpContext | ((str: string) => string)): never {
    if (typeof arg === 'function') return super.help(arg);
    return super.help({ ...arg, error: false });
  }

  /**
   * With `exitOverride()`, commander ends `--help` and `--version` by throwing: what it throws becomes a ParserExit
   * (same exit code, code and message), which errors.ts reads without knowing commander. Subcommands inherit it.
   */
  override exitOverride(callback?: Parameters<Command['exitOverride']>[0]): this {
    return super.exitOverride(callback ?? throwParserExit);
  }

  /**
   * Every usage error commander finds (unknown names, missing or invalid values) becomes ours: on one line, in our
   * voice, naming the help of the command it came from (`see 'svcadm users --help'`), as gh does.
   */
  override error(message: string, options?: { code?: string }): never {
    const text = inOurVoice(this, message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), options?.code);
    throw new UsageError(text, `see '${['svcadm', ...commandPath(this)].join(' ')} --help'`);
  }
}

/** commander's default ending under `exitOverride()`, with a ParserExit thrown in place of its own error. */
function throwParserExit(err: CommanderError): void {
  // As in commander's own: the end of an executable subcommand (svcadm declares none) is not thrown.
  if (err.code === 'commander.executeSubCommandAsync') return;
  throw new ParserExit(err.exitCode, err.code, err.message);
}

/** `a, b or c`. */
function oneOf(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** The long name of an option from its flags (`-o, --output <format>` → `--output`). */
function optionName(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0] ?? flags;
}

/**
 * commander's own texts in the words svcadm uses for its own errors (`--take must be …, got 'x'`): an invalid choice,
 * a missing value, too many arguments. Which text it is comes from commander's error code; the values from the tree.
 */
function inOurVoice(command: Command, text: string, code: string | undefined): string {
  if (code === 'commander.invalidArgument') {
    const option = /^option '([^']+)' argument '(.*)' is invalid\./.exec(text);
    if (option) {
      const found = command.options.find((o) => o.flags === option[1]);
      const choices = found?.argChoices;
      if (choices) return `${optionName(option[1] ?? '')} must be ${oneOf(choices)}, got '${option[2]}'`;
    }
    const argument = /^command-argument value '(.*)' is invalid for argument '([^']+)'\./.exec(text);
    if (argument) {
      const found = command.registeredArguments.find((a) => a.name() === argument[2]);
      const choices = found?.argChoices;
      if (choices) return `the ${argument[2]} must be ${oneOf(choices)}, got '${argument[1]}'`;
    }
  }
  if (code === 'commander.optionMissingArgument') {
    const flags = /^option '([^']+)' argument missing/.exec(text)?.[1];
    if (flags) return `${optionName(flags)} needs a value (${flags.replace(/^[^<[]*/, '')})`;
  }
  if (code === 'commander.missingMandatoryOptionValue') {
    const flags = /^required option '([^']+)' not specified/.exec(text)?.[1];
    if (flags) return `${optionName(flags)} is required (${flags.replace(/^[^<[]*/, '')})`;
  }
  if (code === 'commander.excessArguments' && command.commands.length > 0) {
    // A command that runs by itself and has subcommands (`emulator`): the first word was meant as one of them.
    const names = command.commands.map((c) => c.name()).filter((name) => name !== 'help');
    const path = ['svcadm', ...commandPath(command)].join(' ');
    return `unknown command '${command.args[0] ?? ''}' for '${path}': its commands are ${names.join(', ')}`;
  }
  if (code === 'commander.excessArguments') {
    const args = command.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
    const usage = ['svcadm', ...commandPath(command), ...args].join(' ');
    const got = /but got (\d+)/.exec(text)?.[1];
    return `too many arguments${got ? ` (${got})` : ''}: the usage is ${usage}`;
  }
  return text.replace('(Did you mean', '(did you mean');
}

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
