import type { EventType } from '../domain/event-types.js';
import type { EventContent, EventEnvelope, EventFactory } from './event-factory.js';
import { hashOf } from './random.js';

interface LiveEvent {
  time: number;
  type: EventType;
  content: EventContent;
}

export type CursorCheck = { ok: true; index: number } | { ok: false; reason: 'invalid' | 'expired' };

/** The history spans this long back from the start, evenly spaced. */
const HISTORY_SPAN_MS = 24 * 60 * 60 * 1000;

/**
 * The tenant's event stream: a seeded history generated lazily by index, followed by live events appended while
 * running. Positions are indices; on the wire they are opaque offsets carrying the cursor epoch and a checksum.
 */
export class EventLog {
  private readonly live: LiveEvent[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly historyStart: number;
  private readonly step: number;
  private epoch = 0;

  constructor(
    private readonly factory: EventFactory,
    private readonly seed: number,
    private readonly historyCount: number,
    startedAt: number,
  ) {
    this.step = historyCount > 0 ? HISTORY_SPAN_MS / historyCount : 0;
    this.historyStart = Math.floor(startedAt / 1000) * 1000 - HISTORY_SPAN_MS;
  }

  /** The index the next appended event will get; a stream "at the latest" starts here. */
  get head(): number {
    return this.historyCount + this.live.length;
  }

  timeOf(index: number): number {
    if (index < this.historyCount) return Math.floor(this.historyStart + index * this.step);
    return this.live[index - this.historyCount]?.time ?? Number.POSITIVE_INFINITY;
  }

  typeOf(index: number): EventType {
    if (index < this.historyCount) return this.factory.typeAt(index);
    return this.live[index - this.historyCount]?.type ?? 'user.created';
  }

  envelope(index: number): EventEnvelope {
    const live = index >= this.historyCount ? this.live[index - this.historyCount] : undefined;
    return this.factory.make(index, this.timeOf(index), this.typeOf(index), live?.content);
  }

  /** Appends one event (of a seeded type and content unless given) timed now, and wakes the open streams. */
  append(now: number, type?: EventType, content: EventContent = {}): number {
    const index = this.head;
    this.live.push({ time: now, type: type ?? this.factory.typeAt(index), content });
    for (const listener of this.listeners) listener();
    return index;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first index whose time is at or after `ms` (the head when none is). */
  indexAtTime(ms: number): number {
    let low = 0;
    let high = this.head;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.timeOf(mid) < ms) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Every offset issued so far now answers 410. */
  expireCursors(): void {
    this.epoch++;
  }

  /** The opaque offset of a position; -1 stands for "before the first event". */
  offsetOf(index: number): string {
    const position = (index + 1).toString(36);
    const check = hashOf(this.seed, 11, index + 1, this.epoch).toString(36);
    return Buffer.from(`ev1:${this.epoch}:${position}:${check}`).toString('base64url');
  }

  checkOffset(offset: string): CursorCheck {
    if (offset.length === 0 || offset.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(offset)) {
      return { ok: false, reason: 'invalid' };
    }
    const match = /^ev1:(\d+):([0-9a-z]+):([0-9a-z]+)$/.exec(Buffer.from(offset, 'base64url').toString('latin1'));
    if (!match) return { ok: false, reason: 'invalid' };
    const epoch = Number(match[1]);
    const position = Number.parseInt(match[2] as string, 36);
    if (hashOf(this.seed, 11, position, epoch).toString(36) !== match[3]) return { ok: false, reason: 'invalid' };
    const index = position - 1;
    if (index >= this.head) return { ok: false, reason: 'invalid' };
    if (epoch !== this.epoch) return { ok: false, reason: 'expired' };
    return { ok: true, index };
  }
}
