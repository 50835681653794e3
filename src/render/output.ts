import type { Env, OutStream } from '../context.js';
import { UsageError } from '../errors.js';
import type { GlobalOptions } from '../global-options.js';
import { escapeJsonText } from './sanitize.js';

export type OutputFormat = 'table' | 'json' | 'ndjson';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson'];

/** `-o`, `--json`, else a table on a terminal and JSON otherwise. */
export function resolveFormat(opts: GlobalOptions, stdout: OutStream): OutputFormat {
  const explicit = opts.output;
  if (explicit !== undefined && !OUTPUT_FORMATS.includes(explicit as OutputFormat)) {
    throw new UsageError(`unknown output format '${explicit}'`, 'use table, json or ndjson');
  }
  if (opts.json && explicit !== undefined && explicit !== 'json') {
    throw new UsageError(`--json conflicts with -o ${explicit}`);
  }
  if (opts.json) return 'json';
  if (explicit) return explicit as OutputFormat;
  return stdout.isTTY ? 'table' : 'json';
}

/** NO_COLOR and --no-color turn colour off, FORCE_COLOR turns it on, else only on a terminal. */
export function colorEnabled(opts: Pick<GlobalOptions, 'color'>, env: Env, stream: OutStream): boolean {
  if (opts.color === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return stream.isTTY === true;
}

export function jsonDocument(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value, null, 2))}\n`;
}

export function jsonLine(value: unknown): string {
  return `${escapeJsonText(JSON.stringify(value))}\n`;
}

/** Writes and waits for the stream to take the data, so a large output is not held in memory. */
export function writeOut(stream: OutStream, text: string): Promise<void> | undefined {
  if (stream.write(text)) return undefined;
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => {
      stream.off('drain', onDrain);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    stream.once('drain', onDrain);
    stream.once('error', done);
  });
}
