/**
 * The Printer's stream of items (`printer.stream`, `events tail`) and how it is shown: the types the Printer, the views
 * it loads (the redrawn status line, the interactive live view) and the commands that stream share.
 */

/** How a stream of items (events tail) is shown to people: loaded only when a table was asked for. */
export interface StreamView<I, S, R> {
  /**
   * What a line shows of an item (`R`): small, so that the live view can keep the rows it holds (paused, inspected).
   * `whole`: nothing of it cut to keep it small (accessible mode's lines, printed at once and never kept).
   */
  row(item: I, whole?: boolean): R;
  /**
   * A new formatter (it remembers what it printed last, e.g. the day): a row's lines for `width` columns; `headings`
   * false (--no-headers) leaves out heading lines (the day's); `words` (accessible mode) says in words what is drawn.
   */
  lines(color: boolean, headings?: boolean, words?: boolean): (row: R, width: number) => string;
  /** The status line of the live view, for `width` columns. */
  status(status: S, width: number, color: boolean): string;
  /** A row's kind (the event type): counted at the end, picked with `t` in the interactive view. */
  kind(row: R): string;
  /** What `/` searches in a row, in the interactive view. */
  text(row: R): string;
}

/** How each output format shows one stream item. */
export interface StreamFormats<I, S, R> {
  /**
   * The item as one NDJSON line, in pieces written one after the other: compact JSON ending in a line break, with
   * nothing a terminal could act on (the item's source guarantees it: the stream is too fast to escape twice).
   */
  json(item: I): readonly Uint8Array[];
  /** The item as a value, for --query and YAML. */
  value(item: I): unknown;
  view(): Promise<StreamView<I, S, R>>;
}

/** Where a stream of items goes: NDJSON or YAML documents, lines of text, or the live view on a terminal. */
export interface ItemStream<I, S> {
  /** Prints items, waiting when the reader is slow. */
  write(items: readonly I[]): Promise<void>;
  /** A line on stderr; `always` ignores --quiet. */
  notice(text: string, always?: boolean): void;
  /** True where a status is shown: the live view, the redrawn status line, accessible mode's plain lines. */
  readonly live: boolean;
  status(status: S): void;
  /** Ends the stream; the live view shows `final` as its last status line. */
  close(final?: S): void;
  /** Aborts when the person asks the interactive view to stop (`q`): a stop like --max-events. */
  readonly quit?: AbortSignal;
}
