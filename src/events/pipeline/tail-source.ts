import { REUSED_AFTER, type StreamEvent, type SubscribeOptions, subscribeEvents } from '../stream/subscription.js';
import type { ItemSource } from './pipeline.js';
import type { StreamNote, StreamStateNote } from './stream-notes.js';

/**
 * `events tail` against one tenant: its subscription as a source of the events pipeline, the position its cursor. The
 * subscription's failure is the note of its one stream (named ''), as a tenant's is in a merged tail.
 */
export function tailSource(
  options: Omit<SubscribeOptions, 'signal'>,
): ItemSource<StreamEvent, string, StreamNote | StreamStateNote> {
  return {
    positionOf: (event) => event.offset,
    // A batch's write has settled before the batch REUSED_AFTER later is asked for; no line is kept (`reuseLines`).
    unsettledBatches: REUSED_AFTER - 1,
    async *batches(signal) {
      try {
        yield* subscribeEvents({ ...options, signal });
      } catch (error) {
        yield [{ kind: 'stream-failed', stream: '', error }];
      }
    },
  };
}
