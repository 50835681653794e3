import type { HttpClient } from '../../api/http.js';
import type { Clock } from '../../clock.js';
import { CliError, NetworkError } from '../../errors.js';
import type { ForwardStatus } from '../../render/tail-view.js';
import type { Settlement } from '../pipeline/pipeline.js';
import { DeadLetters } from './dead-letters.js';
import {
  EventForwarder,
  eventName,
  eventText,
  type ForwardedEvent,
  type Notice,
  type RetryState,
} from './forwarder.js';
import type { Forwarding } from './options.js';

/** What became of the events of one type. */
export interface TypeCounts {
  forwarded: number;
  deadLettered: number;
}

/** Event types counted apart; beyond, a server that names a new type per event is counted under OTHER_TYPES. */
const MAX_TYPES_COUNTED = 100;
export const OTHER_TYPES = '(other types)';

/** Counts of a forwarding run: in all, and per event type, by outcome. */
export class ForwardCounts {
  forwarded = 0;
  deadLettered = 0;
  /** Of the dead-lettered: rejected by the app (the others ran out of attempts). */
  rejected = 0;
  readonly byType = new Map<string, TypeCounts>();

  add(type: string, outcome: 'acknowledged' | 'rejected' | 'exhausted'): void {
    let key = type;
    if (!this.byType.has(key) && this.byType.size >= MAX_TYPES_COUNTED) key = OTHER_TYPES;
    let counts = this.byType.get(key);
    if (!counts) {
      counts = { forwarded: 0, deadLettered: 0 };
      this.byType.set(key, counts);
    }
    if (outcome === 'acknowledged') {
      this.forwarded++;
      counts.forwarded++;
    } else {
      this.deadLettered++;
      counts.deadLettered++;
      if (outcome === 'rejected') this.rejected++;
    }
  }
}

/**
 * The delivery sink of the pipeline: the forwarder, then the dead letters. An event the app acknowledged is settled;
 * one it rejected or that ran out of attempts is written to the dead letters and settled, or, without them, stops
 * the run before it (exit 8 for a rejection, 7 for attempts that ran out), the cursor left before it.
 */
export class DeliverySink {
  readonly counts = new ForwardCounts();
  /** The event being tried again, while one is. */
  retrying: RetryState | undefined;
  /** The dead-letter file could not be written (a full disk): the run stops before that event (exit 74). */
  deadLetterFailure: unknown;

  /** Opens the dead-letter file (exit 2 when it cannot be used) before anything is sent. */
  static open(
    http: HttpClient,
    forwarding: Forwarding,
    clock: Clock,
    notice: Notice,
    onChange: () => void = () => {},
  ): DeliverySink {
    const deadLetters = forwarding.deadLetter === undefined ? undefined : DeadLetters.open(forwarding.deadLetter);
    let sink: DeliverySink | undefined;
    const forwarder = new EventForwarder(http, forwarding, clock, notice, (state) => {
      if (sink) sink.retrying = state;
      onChange();
    });
    sink = new DeliverySink(forwarder, deadLetters, clock);
    return sink;
  }

  close(): void {
    this.forwarder.close();
    this.deadLetters?.close();
  }

  /** The forwarding part of the status line. */
  status(): ForwardStatus {
    const { counts, retrying } = this;
    return {
      forwarded: counts.forwarded,
      deadLettered: counts.deadLettered,
      rejected: counts.rejected,
      retrying: retrying && { attempt: retrying.attempt, at: retrying.at },
    };
  }

  constructor(
    private readonly forwarder: EventForwarder,
    private readonly deadLetters: DeadLetters | undefined,
    private readonly clock: Clock,
  ) {}

  /** Makes the next event's request ready while the one before it is with the app (nothing is sent). */
  prepare(event: ForwardedEvent): void {
    this.forwarder.prepare(event);
  }

  async settle(event: ForwardedEvent): Promise<Settlement> {
    const result = await this.forwarder.deliver(event);
    if (result.outcome === 'acknowledged') {
      this.counts.add(event.type, 'acknowledged');
      return result;
    }
    if (this.deadLetters) {
      try {
        this.deadLetters.append(event, result, this.clock.now());
      } catch (err) {
        // The run stops before this event, with its summary and the line to resume with.
        if (err instanceof CliError)
          err.addHint('free space or fix the dead-letter file, then resume with the line above');
        this.deadLetterFailure = err;
        throw err;
      }
      this.counts.add(event.type, result.outcome);
      return { outcome: 'dead-lettered', status: result.status, attempts: result.attempts };
    }
    const what = eventText(eventName(event));
    const where = this.forwarder.where;
    if (result.outcome === 'rejected') {
      throw new CliError(
        'rejected',
        `${where} rejected ${what}: ${result.error.replace(/^rejected: /, '')} (rejected, not retried)`,
        {
          reason: 'forward_rejected',
        },
      );
    }
    throw new NetworkError(`${where} did not acknowledge ${what}: ${result.error} (retried, attempts ran out)`, {
      reason: 'forward_failed',
    });
  }
}

/** The failures the delivery sink stops a run with, before the event it could not settle (the run says where to resume). */
export function stopsBeforeEvent(err: unknown): err is CliError {
  return err instanceof CliError && (err.reason === 'forward_failed' || err.reason === 'forward_rejected');
}
