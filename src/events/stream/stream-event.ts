import { scanEnvelopeId, UNSURE } from './envelope-id.js';

/** An event to show. */
export class StreamEvent {
  readonly kind = 'event';

  constructor(
    readonly type: string,
    /** Its offset, when it came with one svcadm can adopt. */
    readonly offset: string | undefined,
    /** Its payload as one NDJSON line, in pieces (`eventLine`): valid, compact, terminal-safe, `type` first. */
    readonly line: readonly Buffer[],
  ) {}

  /** The payload, parsed on demand (NDJSON output never needs it). */
  payload(): Record<string, unknown> {
    return JSON.parse(Buffer.concat(this.line).toString('utf8')) as Record<string, unknown>;
  }

  /**
   * The id of the envelope the payload holds (`event.id`, a string), or undefined. `text`: the line as text, when
   * the caller has it already. A source that parsed the payload anyway knows it without parsing again.
   */
  envelopeId(text = Buffer.concat(this.line).toString('utf8')): string | undefined {
    const scanned = scanEnvelopeId(text);
    return scanned === UNSURE ? envelopeIdOf(JSON.parse(text) as Record<string, unknown>) : scanned;
  }
}

/** `payload.event.id` when it is a string. */
export function envelopeIdOf(payload: Record<string, unknown>): string | undefined {
  const envelope = payload.event;
  const inner = typeof envelope === 'object' && envelope !== null ? (envelope as { id?: unknown }) : undefined;
  return typeof inner?.id === 'string' ? inner.id : undefined;
}

/** One thing that happened on the subscription, in order. */
export type TailItem =
  | StreamEvent
  /** The position moved without an event to show (`offset-only`, a bare `id:`, an error's offset). */
  | { kind: 'cursor'; offset: string }
  | { kind: 'stream-error'; code: string; message: string; fatal: boolean }
  | { kind: 'warning'; message: string }
  | { kind: 'connected'; attempt: number }
  /**
   * A connection ended or an attempt failed (never a rotation): the stream is down until the next `connected`. An
   * attempt the service answered with an error (a 503, a 429) has its status and error code (`answerOf`).
   */
  | { kind: 'reconnecting'; attempt: number; waitMs: number; reason: string; status?: number; code?: string };
