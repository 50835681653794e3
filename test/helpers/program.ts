import { PassThrough } from 'node:stream';
import type { SvcadmCommand } from '../../src/cli/command.js';
import type { Context, InStream, OutStream } from '../../src/context.js';
import { buildProgram } from '../../src/program.js';
import { VirtualClock } from './clock.js';

/** The commander tree as `run` builds it (for the line `argv`, when given), over streams nobody reads, no environment. */
export function quietProgram(argv?: readonly string[]): SvcadmCommand {
  const ctx: Context = {
    io: {
      stdout: new PassThrough() as PassThrough & OutStream,
      stderr: new PassThrough() as PassThrough & OutStream,
      stdin: new PassThrough() as PassThrough & InStream,
    },
    env: {},
    clock: new VirtualClock(0),
    random: () => 0.5,
    interrupt: new AbortController().signal,
  };
  return buildProgram(ctx, undefined, undefined, argv);
}
