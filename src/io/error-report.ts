import { errorCodeOf } from '../error-codes.js';
import { CliError } from '../errors.js';
import type { Globals } from '../global-options.js';
import { jsonLine } from '../render/json.js';
import { neutralize } from '../text/sanitize.js';
import { asksForData } from './asks-for-data.js';
import type { IOStreams } from './io-streams.js';

/** How a failure is shown, from whatever of the global options could be read. */
export type ErrorView = Pick<Globals, 'format' | 'formatChosen' | 'debug'>;

const BUG_HINT = 'this is a bug in svcadm; run again with --debug and report what it prints';

/**
 * Reports a failure on stderr: one line `svcadm: <message> — <hint>`, or, when data was asked for (`-o json|yaml|
 * ndjson`, `--json`, `--query`), a JSON envelope as the last line (JSON is YAML too). A stack trace only with
 * --debug, and only for what is not one of ours. The hint was completed by the command's refine hook (`Host`).
 */
export function reportFailure(
  err: unknown,
  stderr: IOStreams['stderr'],
  view: ErrorView | undefined,
  exitCode: number,
) {
  const known = err instanceof CliError;
  if (view?.debug && err instanceof Error && !known) stderr.write(`${err.stack ?? err.message}\n`);
  const envelope = errorEnvelope(err, exitCode);
  if (view !== undefined && asksForData(view)) {
    stderr.write(jsonLine(envelope));
    return;
  }
  const { message, hint } = envelope.error;
  stderr.write(`svcadm: ${neutralize(message)}${hint ? ` — ${neutralize(hint)}` : ''}\n`);
}

/** A failure as data: the JSON envelope of `-o json` on stderr, and the error result of an MCP tool (`src/mcp/`). */
export interface ErrorEnvelope {
  error: { status: number | null; code: string; message: string; hint?: string; exit_code: number };
}

export function errorEnvelope(err: unknown, exitCode: number): ErrorEnvelope {
  const known = err instanceof CliError;
  const message = known ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
  const hint = known ? err.hint : BUG_HINT;
  return {
    error: {
      status: known ? (err.status ?? null) : null,
      code: errorCodeOf(err),
      message,
      ...(hint ? { hint } : {}),
      exit_code: exitCode,
    },
  };
}
