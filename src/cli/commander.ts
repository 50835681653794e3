import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander's classes, loaded with `require`: commander is CommonJS, and `import` sends it through the ESM loader's
 * translation (cjs-module-lexer over its source) first, about 6 ms of every start-up on Node 20 (design notes,
 * "Start-up, round 3"). The same module object either way, so `instanceof` holds wherever it was imported from.
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const { Argument, Command, CommanderError, Help, Option } = commander;
export type Argument = Commander.Argument;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type Help = Commander.Help;
export type Option = Commander.Option;
