import { refineError } from '../cli/hints.js';
import { CliError, type ErrorReason } from '../errors.js';

/**
 * What an agent can do about the situations whose CLI advice names a flag or a command: said with the tools'
 * arguments instead. The rest (a refused token, a missing scope) is the CLI's advice: the person who started the
 * server fixes those where svcadm's credentials live.
 */
const TOOL_HINTS: Partial<Record<ErrorReason, string>> = {
  rate_limited: 'wait a little, then call again',
  timeout: 'call again; the server was started with the --timeout it uses',
  too_many_streams: "the tenant's event streams are all in use by other consumers: call again later",
  cursor_expired: 'the cursor is too old: call read_events again with since (e.g. "1h") instead of cursor',
  invalid_cursor: 'pass the next_cursor a previous read_events call returned, or omit cursor',
};

/** `refineError` for a tool's failure: the tools' words where the CLI's would name a flag. */
export function refineToolError(err: unknown, context: Parameters<typeof refineError>[1]): unknown {
  if (err instanceof CliError && err.reason !== undefined) {
    const advice = TOOL_HINTS[err.reason];
    if (advice !== undefined) {
      err.hint = err.hint ? `${advice}; ${err.hint}` : advice;
      return err;
    }
  }
  return refineError(err, context);
}
