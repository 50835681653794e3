import { CURSOR_RULE, isCursor } from '../../domain/cursor.js';
import { isFatalStreamError } from '../../domain/stream-errors.js';
import { CliError, NetworkError } from '../../errors.js';
import { eventLine } from './event-payload.js';
import { RecentIds } from './recent-ids.js';
import type { SseMessage } from './sse-parser.js';
import { StreamEvent, type TailItem } from './stream-event.js';

/** The service's stream rotation (api-notes): followed at once and silently, never a failure. */
const ROTATION = 'connection_timeout';

/**
 * The event stream's messages as svcadm reads them, one at a time, with no socket, clock or I/O: where the position
 * moves (an offset adopted only when it is a cursor, never back to one already passed, a replay dropped), a rotation,
 * the stream's errors (fatal or a reason to reconnect), the warnings said once, and the events (what is shown of
 * them is the pipeline's filter stage). The reconnect loop (`subscribeEvents`) feeds it each connection's messages and takes what they
 * produced; it is told when a new connection starts.
 */
export class StreamInterpreter {
  /** The last position reached: where a reconnect resumes. */
  cursor: string | undefined;
  /** Since the connection started: a new event arrived (progress, for the backoff and --max-reconnects). */
  sawEvent = false;
  /** Since the connection started: the service rotated the stream (`connection_timeout`). */
  rotated = false;
  /** An `event: error` that ends the subscription: a cursor the service refuses. */
  fatal: CliError | undefined;
  /** An `event: error` that ends the connection: svcadm reconnects. */
  endedBy: CliError | undefined;

  /** What the messages produced since the last `take()`, in order. */
  #items: TailItem[] = [];
  readonly #recent = new RecentIds();
  #warnedOffset = false;
  #warnedReplay = false;

  constructor(from: string | undefined) {
    this.cursor = from;
    if (from !== undefined) this.#recent.add(from);
  }

  /** A connection is about to be opened: what the last one's messages said of it is forgotten. */
  startConnection(): void {
    this.sawEvent = false;
    this.rotated = false;
    this.fatal = undefined;
    this.endedBy = undefined;
  }

  /** Whether the connection's messages have ended it: no further message of it is read. */
  get ended(): boolean {
    return this.fatal !== undefined || this.endedBy !== undefined || this.rotated;
  }

  /** Whether there are items to take. */
  get pending(): boolean {
    return this.#items.length > 0;
  }

  /** The items produced since the last call, in order; each is handed over once. */
  take(): TailItem[] {
    const items = this.#items;
    if (items.length > 0) this.#items = [];
    return items;
  }

  /** One message of the stream. */
  message(msg: SseMessage): void {
    const type = msg.event;
    if (type === 'offset-only' || !msg.hasData) {
      const offset = this.#adopt(
        (msg.hasData ? stringField(parseJsonObject(msg.data), 'offset') : undefined) ?? (msg.id || undefined),
      );
      if (offset !== undefined && this.#advance(offset)) this.#items.push({ kind: 'cursor', offset });
      return;
    }
    if (type === 'error') {
      this.#error(msg.data);
      return;
    }
    // The id is the offset on this wire: no need to parse every payload just to learn it.
    const offset = this.#adopt(msg.id || stringField(parseJsonObject(msg.data), 'offset'));
    if (offset !== undefined && !this.#advance(offset)) {
      // Sent again (a server that ignores `from`): printed once, and no progress.
      if (!this.#warnedReplay) {
        this.#warnedReplay = true;
        this.#items.push({
          kind: 'warning',
          message: 'the service sent events again that were already seen; dropping repeats',
        });
      }
      return;
    }
    this.sawEvent = true;
    const line = msg.line ?? eventLine(type, msg.data);
    if (line === undefined) {
      this.#items.push({ kind: 'warning', message: `skipped a ${clip(type)} message whose data is not a JSON object` });
      if (offset !== undefined) this.#items.push({ kind: 'cursor', offset });
      return;
    }
    this.#items.push(new StreamEvent(type, offset, line));
  }

  /** An `event: error` message: its offset taken unless it is fatal; a rotation is followed without a word. */
  #error(data: Buffer): void {
    const body = parseJsonObject(data);
    const detail =
      typeof body?.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : body;
    const code = clip(stringField(detail, 'code') ?? 'unknown');
    const message = clip(stringField(detail, 'message') ?? data.toString('utf8'));
    const offset = this.#adopt(stringField(detail, 'offset'));
    const isFatal = isFatalStreamError(code);
    if (!isFatal && offset !== undefined && this.#advance(offset)) this.#items.push({ kind: 'cursor', offset });
    if (code === ROTATION) {
      this.rotated = true;
      return;
    }
    this.#items.push({ kind: 'stream-error', code, message, fatal: isFatal });
    if (isFatal) this.fatal = streamError(code, message);
    else this.endedBy = streamError(code, message);
  }

  /** The offset if it is a cursor svcadm can adopt (saved, resumed from, printed), else undefined. */
  #adopt(offset: string | undefined): string | undefined {
    if (offset === undefined || isCursor(offset)) return offset;
    if (!this.#warnedOffset) {
      this.#warnedOffset = true;
      this.#items.push({ kind: 'warning', message: `ignored an event offset that is not ${CURSOR_RULE}` });
    }
    return undefined;
  }

  /** Moves the cursor, never back to a position already passed (a server that replays). */
  #advance(offset: string): boolean {
    if (offset === this.cursor || !this.#recent.add(offset)) return false;
    this.cursor = offset;
    return true;
  }
}

/** An `event: error` message: fatal for a cursor the service refuses, else a reason to reconnect. */
function streamError(code: string, message: string): CliError {
  if (code === 'cursor_expired') {
    return new CliError('rejected', `the cursor has expired: ${message}`, { code, reason: 'cursor_expired' });
  }
  if (code === 'invalid_cursor') {
    return new CliError('rejected', `the service rejected the cursor: ${message}`, { code, reason: 'invalid_cursor' });
  }
  return new NetworkError(`stream error ${code}: ${message}`);
}

function parseJsonObject(data: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(data.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Service text shown in a message: a hostile stream could send megabytes of it. */
export function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function stringField(record: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
