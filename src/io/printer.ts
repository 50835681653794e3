import type { PagerPage } from '../api/pagers.js';
import { hintFor } from '../cli/hints.js';
import { CliError, OutputError } from '../errors.js';
import type { Globals, OutputFormat } from '../global-options.js';
import { jsonDocument, jsonLine } from '../render/json.js';
import { fetchedText } from '../render/progress-text.js';
import { escapeJsonText, neutralize } from '../render/sanitize.js';
import { type TableSpec, tableText } from '../render/table-model.js';
import type { IOStreams } from './io-streams.js';

/** What a stream of items (events tail) writes to: NDJSON lines, plain lines, or the live view. */
export interface LineSink<S> {
  /** Writes finished lines, waiting when the reader is slow. */
  write(text: string | Uint8Array): Promise<void> | undefined;
  /** A line on stderr; `always` ignores --quiet. */
  notice(text: string, always?: boolean): void;
  /** Only the live view has a status line. */
  status?(status: S): void;
  close(): void;
}

/** How each output format shows one stream item: the JSON text of it, or the view of its parsed value. */
export interface StreamFormats<I, S> {
  /**
   * The item as one NDJSON line, in pieces written one after the other: compact JSON ending in a line break, with
   * nothing a terminal could act on (the item's source guarantees it: the stream is too fast to escape twice).
   */
  json(item: I): readonly Uint8Array[];
  /** The item as one line of text for `width` columns (Infinity off a terminal), colour as decided. */
  line(item: I, color: boolean, width: number): string;
  /** Starts the live view on a terminal; loaded only there. */
  live(io: IOStreams, initial: S, color: boolean): Promise<LineSink<S>>;
}

/**
 * The one place that branches on the output format (as cli/cli's Exporter): commands hand it data and a table spec.
 * json: the value as the service sent it; ndjson: one compact value per line; table: Ink on a terminal, plain
 * aligned text otherwise.
 */
export class Printer {
  readonly #io: IOStreams;
  readonly #format: OutputFormat;
  readonly #formatChosen: boolean;
  readonly #color: boolean;

  constructor(io: IOStreams, globals: Pick<Globals, 'format' | 'formatChosen' | 'color'>) {
    this.#io = io;
    this.#format = globals.format;
    this.#formatChosen = globals.formatChosen;
    this.#color = globals.color.stdout;
  }

  /** One resource: the document, one NDJSON line, or its table. */
  async one(value: unknown, table: () => TableSpec): Promise<void> {
    if (this.#format === 'table') return this.#table(table());
    return this.#values(value);
  }

  /**
   * One page of a list: the body as sent (json), its items (ndjson), or the table of its items with, on stderr, how
   * to get the next page (`next`) or what an empty list means (`empty`).
   */
  async page<T>(
    body: unknown,
    items: readonly T[],
    table: (items: readonly T[]) => TableSpec,
    hints: { next?: () => string | undefined; empty?: string } = {},
  ): Promise<void> {
    if (this.#format === 'json') return this.#io.write(jsonDocument(body));
    if (this.#format === 'ndjson') return this.#values(items);
    if (items.length === 0 && hints.empty !== undefined) return this.#io.notice(hints.empty);
    await this.#table(table(items));
    const next = hints.next?.();
    if (next !== undefined) this.#io.notice(next);
  }

  /**
   * Every page of a list, each item once, in order: `json` is one array written item by item (byte-identical to one
   * document, never held whole), `ndjson` a line per item, a table collects every row (it needs them for widths).
   * A progress line on stderr counts what was fetched.
   */
  async all<T>(pages: AsyncIterable<PagerPage<T>>, table: (items: readonly T[]) => TableSpec): Promise<void> {
    const progress = this.#io.progress();
    const rows: T[] = [];
    let count = 0;
    try {
      for await (const page of pages) {
        progress.update(fetchedText(page.fetched, page.total));
        if (page.items.length === 0) continue;
        if (this.#format === 'ndjson') {
          await this.#io.write(page.items.map((item) => jsonLine(item)).join(''));
        } else if (this.#format === 'json') {
          let text = '';
          for (const item of page.items) {
            const element = JSON.stringify(item, null, 2).replace(/\n/g, '\n  ');
            text += `${count === 0 ? '[\n  ' : ',\n  '}${element}`;
            count++;
          }
          await this.#io.write(escapeJsonText(text));
        } else {
          rows.push(...page.items);
        }
      }
    } finally {
      progress.done();
    }
    if (this.#format === 'json') return this.#io.write(count === 0 ? '[]\n' : '\n]\n');
    if (this.#format === 'table') return this.#table(table(rows));
  }

  /**
   * The result of an action (a delete): the value as JSON, or a sentence on stdout and notes on stderr. When stdout
   * cannot take it, the action has still happened: the result goes with the error, on stderr.
   */
  async result(value: unknown, human: { text: string; notices?: readonly string[] }): Promise<void> {
    try {
      if (this.#format !== 'table') return await this.#values(value);
      await this.#io.write(human.text);
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      const said =
        this.#format === 'table' ? [human.text.trim(), ...(human.notices ?? [])].join('; ') : JSON.stringify(value);
      throw err.addHint(`the request went through: ${said}`);
    }
    for (const notice of human.notices ?? []) this.#io.notice(notice);
  }

  /**
   * A value announced on one line for a script that asked for JSON (`-o json|ndjson`, `--json`), else the text for a
   * person, even off a terminal: a long-running command's banner is read by people first.
   */
  async announce(value: unknown, text: string): Promise<void> {
    await this.#io.write(this.#formatChosen && this.#format !== 'table' ? jsonLine(value) : text);
  }

  /**
   * Where a stream of items goes: NDJSON lines, plain lines off a terminal, or the live view on one; `lines` turns a
   * batch of items into what to write.
   */
  async stream<I, S>(
    formats: StreamFormats<I, S>,
    initial: S,
  ): Promise<{ sink: LineSink<S>; lines(items: readonly I[]): string | Uint8Array }> {
    const io = this.#io;
    const notice = (text: string, always?: boolean) => (always ? io.stderr.write(`${text}\n`) : io.notice(text));
    if (this.#format !== 'table') {
      return {
        sink: { write: (chunk) => io.write(chunk), notice, close: () => {} },
        lines: (items) => {
          const pieces: Uint8Array[] = [];
          let length = 0;
          for (const item of items) {
            for (const piece of formats.json(item)) {
              pieces.push(piece);
              length += piece.length;
            }
          }
          return Buffer.concat(pieces, length);
        },
      };
    }
    const color = this.#color;
    const width = io.stdout.isTTY === true ? (io.stdout.columns ?? 100) : Number.POSITIVE_INFINITY;
    const lines = (items: readonly I[]) => items.map((item) => `${formats.line(item, color, width)}\n`).join('');
    if (io.stdout.isTTY !== true) return { sink: { write: (text) => io.write(text), notice, close: () => {} }, lines };
    return { sink: await formats.live(io, initial, color), lines };
  }

  async #values(value: unknown): Promise<void> {
    if (this.#format === 'json') return this.#io.write(jsonDocument(value));
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) await this.#io.write(jsonLine(item));
  }

  async #table(spec: TableSpec): Promise<void> {
    const { stdout } = this.#io;
    if (stdout.isTTY) {
      const { renderTable } = await import('../render/table-view.js');
      return this.#io.write(renderTable(spec, this.#color, stdout.columns ?? 100));
    }
    return this.#io.write(tableText(spec));
  }
}

/** How a failure is shown, from whatever of the global options could be read. */
export type ErrorView = Pick<Globals, 'format' | 'formatChosen' | 'debug'>;

const BUG_HINT = 'this is a bug in svcadm; run again with --debug and report what it prints';

/**
 * Reports a failure on stderr: one line `svcadm: <message> — <hint>`, or, when JSON was asked for, a JSON envelope
 * as the last line. A stack trace only with --debug, and only for what is not one of ours.
 */
export function reportFailure(
  err: unknown,
  stderr: IOStreams['stderr'],
  view: ErrorView | undefined,
  exitCode: number,
) {
  const known = err instanceof CliError;
  if (view?.debug && err instanceof Error && !known) stderr.write(`${err.stack ?? err.message}\n`);
  const message = known ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
  const hint = known ? hintFor(err) : BUG_HINT;
  const json = view?.formatChosen === true && view.format !== 'table';
  if (json && !(known && err.kind === 'interrupted')) {
    const envelope = {
      error: {
        status: known ? (err.status ?? null) : null,
        code: known ? (err.code ?? null) : null,
        message,
        ...(hint ? { hint } : {}),
        exit_code: exitCode,
      },
    };
    stderr.write(jsonLine(envelope));
    return;
  }
  stderr.write(`svcadm: ${neutralize(message)}${hint ? ` — ${hint}` : ''}\n`);
}
