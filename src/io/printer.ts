import type { PagerPage } from '../api/pagers.js';
import { CliError } from '../errors.js';
import type { Globals, OutputFormat } from '../global-options.js';
import { jsonDocument, jsonLine } from '../render/json.js';
import { fetchedText } from '../render/progress-text.js';
import { escapeJsonText, neutralize } from '../render/sanitize.js';
import { type TableSpec, tableText } from '../render/table-model.js';
import type { IOStreams } from './io-streams.js';

/** What a stream of items (events tail) writes to: NDJSON lines, plain lines, or the live view. */
export interface LineSink<S> {
  /** Writes finished lines, waiting when the reader is slow. */
  write(text: string): Promise<void> | undefined;
  /** A line on stderr; `always` ignores --quiet. */
  notice(text: string, always?: boolean): void;
  /** Only the live view has a status line. */
  status?(status: S): void;
  close(): void;
}

/** How each output format shows one stream item: the JSON text of it, or the view of its parsed value. */
export interface StreamFormats<I, S> {
  /** The item as one compact JSON text (without the line break). */
  json(item: I): string;
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

  /** The result of an action (a delete): the value as JSON, or a sentence on stdout and notes on stderr. */
  async result(value: unknown, human: { text: string; notices?: readonly string[] }): Promise<void> {
    if (this.#format !== 'table') return this.#values(value);
    await this.#io.write(human.text);
    for (const notice of human.notices ?? []) this.#io.notice(notice);
  }

  /**
   * A value announced on one line for a script that asked for JSON (`-o json|ndjson`, `--json`), else the text for a
   * person, even off a terminal: a long-running command's banner is read by people first.
   */
  async announce(value: unknown, text: string): Promise<void> {
    await this.#io.write(this.#formatChosen && this.#format !== 'table' ? jsonLine(value) : text);
  }

  /** An answer with nothing to show (a 204): nothing on stdout in any format, `text` on stderr in the table view. */
  empty(text: string): void {
    if (this.#format === 'table') this.#io.notice(text);
  }

  /**
   * Reference text for people (`svcadm commands`), or its value when a script asked for JSON (`-o json`, `--json`):
   * like a banner, it is text by default even off a terminal.
   */
  async reference(value: unknown, text: string): Promise<void> {
    if (asksForData({ format: this.#format, formatChosen: this.#formatChosen })) return this.#values(value);
    await this.#io.write(text);
  }

  /**
   * Side information about what is being done (a correlation id, a signing secret) on stderr: one JSON line when a
   * script asked for JSON, else `text`. Not with --quiet unless `always` (what cannot be learnt another way).
   */
  aside(value: Readonly<Record<string, unknown>>, text: string, always = false): void {
    if (this.#io.quiet && !always) return;
    const json = asksForData({ format: this.#format, formatChosen: this.#formatChosen });
    this.#io.stderr.write(json ? jsonLine(value) : `${text}\n`);
  }

  /** Where a stream of items goes: NDJSON lines, plain lines off a terminal, or the live view on one. */
  async stream<I, S>(formats: StreamFormats<I, S>, initial: S): Promise<{ sink: LineSink<S>; line(item: I): string }> {
    const io = this.#io;
    const notice = (text: string, always?: boolean) => (always ? io.stderr.write(`${text}\n`) : io.notice(text));
    if (this.#format !== 'table') {
      return {
        sink: { write: (text) => io.write(escapeJsonText(text)), notice, close: () => {} },
        line: (item) => `${formats.json(item)}\n`,
      };
    }
    const color = this.#color;
    if (io.stdout.isTTY !== true) {
      return {
        sink: { write: (text) => io.write(text), notice, close: () => {} },
        line: (item) => `${formats.line(item, color, Number.POSITIVE_INFINITY)}\n`,
      };
    }
    const sink = await formats.live(io, initial, color);
    return { sink, line: (item) => `${formats.line(item, color, io.stdout.columns ?? 100)}\n` };
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

/** JSON was asked for (`-o json|ndjson`, `--json`), not merely the default off a terminal. */
function asksForData(view: { readonly format: OutputFormat; readonly formatChosen: boolean }): boolean {
  return view.formatChosen && view.format !== 'table';
}

/**
 * `--help` with JSON asked for: writes the command's catalog entry (`svcadm commands --json`) and returns true;
 * false leaves the help to commander. Called before the global options are parsed, from what commander read.
 */
export function writeHelpEntry(
  stdout: IOStreams['stdout'],
  view: Pick<ErrorView, 'format' | 'formatChosen'> | undefined,
  entry: () => unknown,
): boolean {
  if (view === undefined || !asksForData(view)) return false;
  stdout.write(jsonDocument(entry()));
  return true;
}

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
  const hint = known ? err.hint : BUG_HINT;
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
