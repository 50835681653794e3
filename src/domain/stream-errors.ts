/**
 * Codes of `event: error` messages (api-notes.md): the fatal ones end the subscription, the transient ones (and any
 * other code) mean "reconnect".
 */
export const FATAL_STREAM_ERRORS = ['invalid_cursor', 'cursor_expired'] as const;
export const TRANSIENT_STREAM_ERRORS = [
  'timeout',
  'connection_timeout',
  'processing_error',
  'payload_too_large',
] as const;
export type StreamErrorCode = (typeof FATAL_STREAM_ERRORS)[number] | (typeof TRANSIENT_STREAM_ERRORS)[number];

export function isStreamErrorCode(value: string): value is StreamErrorCode {
  return (
    (FATAL_STREAM_ERRORS as readonly string[]).includes(value) ||
    (TRANSIENT_STREAM_ERRORS as readonly string[]).includes(value)
  );
}

const FATAL: ReadonlySet<string> = new Set(FATAL_STREAM_ERRORS);

/** Whether an `event: error` code ends the subscription; every other code means "reconnect". */
export function isFatalStreamError(code: string): boolean {
  return FATAL.has(code);
}
