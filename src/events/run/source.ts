import type { PasteHint } from '../../cli/paste.js';
import type { StreamFormats } from '../../io/stream-types.js';
import type { TailStatus } from '../../render/tail-view.js';
import type { Forwarding } from '../forward/options.js';
import type { ItemSource, ShownItem, SourceEvent } from '../pipeline/pipeline.js';
import type { MalformedLine } from '../pipeline/recorded-file.js';
import type { StreamNote, StreamStateNote } from '../pipeline/stream-notes.js';
import type { StreamEvent } from '../stream/stream-event.js';
import type { RunPositions } from './positions.js';
import type { RunTenants } from './tenant-failures.js';

/** What a source says besides its events and positions: the run's one vocabulary of notes. */
export type RunNote = StreamNote | StreamStateNote | MalformedLine;

/**
 * What a command hands the run: its source and what only it knows. Everything else — the stops, the filter stage,
 * the sinks, the status, the notices, the summary, the resume line and the exit code — is the run's.
 */
export interface EventsSource<E extends SourceEvent, P, R> {
  /** The pipeline's source, made once the files the user named are open (a failure there sends nothing). */
  open(): ItemSource<E, P, RunNote>;
  /** The stream event an item carries: what is filtered, forwarded and recorded. */
  eventOf(item: E): StreamEvent;
  /** How its items are printed; `R`: what a line for people shows of one. */
  readonly formats: StreamFormats<ShownItem<E>, TailStatus, R>;
  readonly positions: RunPositions<P, E>;
  /** The streams read: a tenant's profile each; '' for a lone tail; none for a recorded file. */
  readonly streams: readonly string[];
  /** Across tenants: how each tenant's failure is worded and reported. */
  readonly tenants?: RunTenants | undefined;
  /** The command in a resume line: `events tail`, `events replay <file>` (then the position, then `keep`). */
  readonly command: readonly string[];
  /** Words of the command that a resume line keeps after the position (`--strict`). */
  readonly keep?: readonly string[] | undefined;
  /** The pasteable line (with `--profiles` across tenants). */
  readonly paste: PasteHint;
  /** A recorded file: its name, and what was read of it for the progress line (`replaying f: 42% · 10 events`). */
  readonly reading?: { readonly path: string; progress(count: number): string } | undefined;
  /** Ends what the source opened (the tenants' services), once the run is over. */
  close?(): void;
}

/** The options of every source. */
export interface RunOptions {
  readonly types: readonly string[];
  readonly forward?: Forwarding | undefined;
  readonly outputFile?: string | undefined;
  readonly cursorFile?: string | undefined;
  readonly maxEvents?: number | undefined;
  readonly durationMs?: number | undefined;
  /** A malformed line of a recorded file stops the run. */
  readonly strict?: boolean | undefined;
}
