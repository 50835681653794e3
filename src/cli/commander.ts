import { createRequire, Module } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander's classes, loaded with `require`: commander is CommonJS, and `import` sends it through the ESM loader's
 * translation (cjs-module-lexer over its source) first, about 6 ms of every start-up on Node 20 (design notes,
 * "Start-up, round 3"). The same module object either way, so `instanceof` holds wherever it was imported from.
 */
const commander = withChildProcessOnFirstUse(() => createRequire(import.meta.url)('commander') as typeof Commander);

export const { Argument, Command, CommanderError, Help, Option } = commander;
export type Argument = Commander.Argument;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type Help = Commander.Help;
export type Option = Commander.Option;

/**
 * commander requires `node:child_process` as it loads, for executable subcommands (`.command(name, description)`),
 * which svcadm never declares; loading it (and `dgram` with it) is about 2 ms of every start on Node 20 ("Start-up,
 * round 5"). While `load` runs, and only then, a require of it gets a stand-in that loads the real module when a
 * property is first read. Nothing else runs meanwhile: `load` is synchronous.
 */
function withChildProcessOnFirstUse<T>(load: () => T): T {
  const prototype = Module.prototype as { require(id: string): unknown };
  const require = prototype.require;
  const childProcess = new Proxy(
    {},
    { get: (_target, key) => Reflect.get(process.getBuiltinModule('node:child_process'), key) },
  );
  prototype.require = function (this: unknown, id: string) {
    return id === 'node:child_process' || id === 'child_process' ? childProcess : require.call(this, id);
  };
  try {
    return load();
  } finally {
    prototype.require = require;
  }
}
