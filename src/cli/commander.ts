import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander's classes, loaded with `require`: commander is CommonJS, and `import` sends it through the ESM loader's
 * translation (cjs-module-lexer over its source) first. Kept for start-up: `policies get -o json` takes 2.5 ms (CPU)
 * more with `import` (docs/decisions/2026-11-25-start-up-tricks.md). The same module object either way, so
 * `instanceof` holds wherever it was imported from, and the source runs as the bundle does.
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const { Argument, Command, CommanderError, Help, Option } = commander;
export type Argument = Commander.Argument;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type Help = Commander.Help;
export type Option = Commander.Option;
