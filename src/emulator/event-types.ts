/** The 25 event types of the spec, in its order. */
export const EVENT_TYPES = [
  'connection.created',
  'connection.deleted',
  'connection.updated',
  'group.created',
  'group.deleted',
  'group.updated',
  'group.member.added',
  'group.member.deleted',
  'group.role.assigned',
  'group.role.deleted',
  'organization.created',
  'organization.deleted',
  'organization.updated',
  'organization.connection.added',
  'organization.connection.removed',
  'organization.connection.updated',
  'organization.group.role.assigned',
  'organization.group.role.deleted',
  'organization.member.added',
  'organization.member.deleted',
  'organization.member.role.assigned',
  'organization.member.role.deleted',
  'user.created',
  'user.deleted',
  'user.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(value: string): value is EventType {
  return TYPE_SET.has(value);
}

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
