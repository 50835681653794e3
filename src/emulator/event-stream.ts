import type { ServerResponse } from 'node:http';
import type { EventType } from '../domain/event-types.js';
import type { StreamErrorCode } from '../domain/stream-errors.js';
import type { EventLog } from './event-log.js';

export interface StreamSettings {
  heartbeatMs: number;
  /** Sent as `retry:` when the stream opens. */
  retryMs: number;
  /** Close each stream after this many events were sent; 0 = never. */
  dropAfterEvents: number;
  /** Close each stream after this long; 0 = never. */
  lifetimeMs: number;
}

const ROTATION_MESSAGE = 'Connection lifetime reached; reconnect from the offset to continue.';

/** Bytes gathered before one write; larger writes mean fewer syscalls at high rates. */
const CHUNK_BYTES = 64 * 1024;

function message(id: string, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/** One open `GET /events` response, fed from the event log with backpressure. */
export class EventStream {
  private next: number;
  private sent = 0;
  private pumping = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly res: ServerResponse,
    private readonly log: EventLog,
    start: number,
    private readonly filter: ReadonlySet<EventType> | undefined,
    private readonly settings: () => StreamSettings,
    private readonly onClose: (stream: EventStream) => void,
  ) {
    this.next = start;
    const { heartbeatMs, lifetimeMs, retryMs } = settings();
    res.write(`:connected\nretry: ${retryMs}\n\n`);
    if (heartbeatMs > 0) {
      // Every stream, filtered or not, idle or not: the client's cursor moves on while nothing is printed (api-notes).
      const heartbeat = setInterval(() => this.write(`: heartbeat\n\n${this.offsetOnly(this.next - 1)}`), heartbeatMs);
      this.timers.push(heartbeat);
    }
    // The service's rotation (api-notes): `connection_timeout` with the current offset, then the close.
    if (lifetimeMs > 0)
      this.timers.push(setTimeout(() => this.error('connection_timeout', ROTATION_MESSAGE), lifetimeMs));
    this.unsubscribe = log.subscribe(() => void this.pump());
    res.on('close', () => this.cleanup());
    // Not synchronously: the hub must have registered this stream before it can possibly end.
    setImmediate(() => void this.pump());
  }

  /** The offset of the last position this stream has passed. */
  get offset(): string {
    return this.log.offsetOf(this.next - 1);
  }

  /** Sends an `event: error` message, then closes the stream. */
  error(code: StreamErrorCode, text: string): void {
    this.write(`event: error\ndata: ${JSON.stringify({ error: { code, message: text, offset: this.offset } })}\n\n`);
    this.end();
  }

  /** Closes the response normally (the client sees the stream end). */
  end(): void {
    if (this.closed) return;
    this.cleanup();
    this.res.end();
  }

  /** Cuts the connection abruptly (the client sees a network error). */
  destroy(): void {
    if (this.closed) return;
    this.cleanup();
    this.res.destroy();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.unsubscribe();
    this.onClose(this);
  }

  private write(text: string): boolean {
    if (this.closed) return true;
    return this.res.write(text);
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (!this.closed && this.next < this.log.head) {
        const dropAfter = this.settings().dropAfterEvents;
        let chunk = '';
        let dropNow = false;
        while (this.next < this.log.head && chunk.length < CHUNK_BYTES) {
          const index = this.next++;
          const type = this.log.typeOf(index);
          if (this.filter && !this.filter.has(type)) continue;
          const offset = this.log.offsetOf(index);
          const data = `{"offset":"${offset}","event":${JSON.stringify(this.log.envelope(index))}}`;
          chunk += message(offset, type, data);
          this.sent++;
          if (dropAfter > 0 && this.sent >= dropAfter) {
            dropNow = true;
            break;
          }
        }
        const flowing = chunk === '' || this.write(chunk);
        if (dropNow) {
          this.end();
          return;
        }
        if (!flowing) await this.drained();
        else await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.pumping = false;
    }
  }

  private offsetOnly(index: number): string {
    const offset = this.log.offsetOf(index);
    return message(offset, 'offset-only', `{"offset":"${offset}"}`);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}

/** The set of open streams: the concurrent-stream limit and the operations the control API performs on all. */
export class StreamHub {
  private readonly streams = new Set<EventStream>();
  opened = 0;

  get count(): number {
    return this.streams.size;
  }

  open(
    res: ServerResponse,
    log: EventLog,
    start: number,
    filter: ReadonlySet<EventType> | undefined,
    settings: () => StreamSettings,
  ): EventStream {
    this.opened++;
    const stream = new EventStream(res, log, start, filter, settings, (s) => this.streams.delete(s));
    this.streams.add(stream);
    return stream;
  }

  endAll(): number {
    const streams = [...this.streams];
    for (const stream of streams) stream.end();
    return streams.length;
  }

  destroyAll(): number {
    const streams = [...this.streams];
    for (const stream of streams) stream.destroy();
    return streams.length;
  }

  errorAll(code: StreamErrorCode, text: string): number {
    const streams = [...this.streams];
    for (const stream of streams) stream.error(code, text);
    return streams.length;
  }
}
