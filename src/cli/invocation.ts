import type { Context } from '../context.js';
import type { Globals } from '../global-options.js';
import type { IOStreams } from '../io/io-streams.js';
import type { Printer } from '../io/printer.js';
import type { Services } from '../services.js';
import type { PasteHint } from './paste.js';

/** What a command's run function works with: the world, the global options, output and the service. */
export interface Invocation {
  readonly ctx: Context;
  readonly globals: Globals;
  readonly io: IOStreams;
  readonly out: Printer;
  readonly services: Services;
  /** A command line for the user to paste, carrying the options that chose this run's tenant and output. */
  readonly paste: PasteHint;
}
