import type { StreamEvent, TailItem } from '../stream/subscription.js';

/** What a subscription says besides events and positions: connected, reconnecting, stream errors, warnings. */
export type StreamNote = Exclude<TailItem, StreamEvent | { kind: 'cursor' }>;

/**
 * What a source of streams says of one of them: a tenant's subscription in a merged tail, named by its profile. A
 * lone tail's notes are the subscription's own (`StreamNote`), its failure the one of the stream named ''.
 */
export type StreamStateNote =
  | { readonly kind: 'stream-note'; readonly stream: string; readonly note: StreamNote }
  /** Its subscription ended with an error (a fatal 403, 410, 401, or reconnects given up): not a reconnect. */
  | { readonly kind: 'stream-failed'; readonly stream: string; readonly error: unknown }
  /** Its subscription ended without one (the run stopped it, or it reached `--max-events`). */
  | { readonly kind: 'stream-ended'; readonly stream: string };
