// The emulator serves the same 25 types the CLI validates against.
export { EVENT_TYPES, type EventType, isEventType } from '../api/event-types.js';

/** Codes of `event: error` messages (api-notes.md); the first two are fatal, the rest mean "reconnect". */
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
