import type { PagerPage } from '../api/pagers.js';
import type { Clock } from '../clock.js';
import { NetworkError, OutputError } from '../errors.js';
import type { Globals, OutputFormat } from '../global-options.js';
import { colorJson, jsonDocument, jsonLine } from '../render/json.js';
import { fetchedText, groupedCount } from '../render/progress-text.js';
import type { Query } from '../render/query.js';
import { rawText } from '../render/raw-text.js';
import type { TableSpec } from '../render/table-model.js';
import { escapeJsonText, neutralize } from '../text/sanitize.js';
import { ByteJoiner } from '../util/byte-joiner.js';
import { asksForData } from './asks-for-data.js';
import { type IOStreams, STREAM_QUEUE_BYTES } from './io-streams.js';
import { streamViewKind } from './live-view-choice.js';
import {
  collectAfterBytes,
  keepYoungGenerationSmall,
  MINOR_COLLECTION_BYTES,
  spooledListText,
} from './memory-policy.js';
import { statusLines } from './status-lines.js';
import type { ItemStream, StreamFormats } from './stream-types.js';
import { type TenantError, TenantOutput, tenantFailureLine } from './tenant-output.js';
import { isSpool } from './tenant-spool.js';

/** That a page printed is not the whole list, and how to get the rest. */
export interface MoreResults {
  /** How many items the list holds in all, when the service said. */
  total?: number | undefined;
  /** Only a guess: the page is as long as a page the service cuts at, and it gave no total. */
  maybe?: boolean | undefined;
  /** The next page's command line (pasteable), when there is one. */
  next?: string | undefined;
  /** How to get every item: a command line, or what to do. */
  all: string;
}

/** What a list says besides its items: what an empty page means, whether more exist and how to get them. */
export interface PageHints {
  /** Undefined when the page holds the rest of the list. */
  more?: () => MoreResults | undefined;
  /** Said on stderr instead of an empty table. */
  empty?: string;
}

/**
 * The one line on stderr that says a page is not the whole list (not with --quiet), in every format: in the data
 * formats `more results: printed 25 of 1200; next page: svcadm …; every page: svcadm … --all`, a stable line for
 * scripts and agents; under a table, the next page's command as people read it.
 */
function moreResultsLine(more: MoreResults, printed: number, table: boolean): string {
  if (table) return more.next !== undefined ? `Next page: ${more.next}` : `More results: ${more.all}`;
  const count =
    more.total !== undefined ? `${printed} of ${more.total}` : `${printed}, more ${more.maybe ? 'may exist' : 'exist'}`;
  const next = more.next !== undefined ? `; next page: ${more.next}` : '';
  return `more results: printed ${count}${next}; every page: ${more.all}`;
}

/** What was printed of a list that failed or was stopped part of the way, for the line on stderr. */
/**
 * What `--all` holds, at most, of a list it prints whole (json, yaml, a table, --query): past either bound the list is
 * taken for one that never ends, and the run stops with exit 7 and nothing on stdout
 * (docs/decisions/2026-11-25-all-held-bound.md). NDJSON streams, and is not bounded.
 */
export const ALL_HELD_MAX_ITEMS = 100_000;
export const ALL_HELD_MAX_BYTES = 24 * 1024 * 1024;

function listTooLong(): NetworkError {
  const bound = `${groupedCount(ALL_HELD_MAX_ITEMS)} items or ${ALL_HELD_MAX_BYTES / 1024 / 1024} MB`;
  return new NetworkError(`the list is longer than svcadm holds to print it whole (${bound})`, {
    hint: '-o ndjson prints a list of any length as it comes',
    code: 'list_too_long',
  });
}

function incompleteLine(printed: number, total: number | undefined): string {
  return `incomplete: printed ${printed}${total !== undefined ? ` of ${total}` : ', more existed'}`;
}

/** Text gathered into writes of about 64 KB: a long output read back a line at a time is not a write per line. */
class TextBatch {
  #text = '';

  constructor(private readonly write: (text: string) => Promise<void>) {}

  async add(text: string): Promise<void> {
    this.#text += text;
    if (this.#text.length >= 64 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    const text = this.#text;
    this.#text = '';
    if (text !== '') await this.write(text);
  }
}

const NOTHING = 'Nothing to show.';
/**
 * A stream printed in `json` is NDJSON: a JSON array could never end. Said once where `-o json` or `--json` was given,
 * never where JSON is only the default (docs/decisions/2026-11-28-json-stream-is-ndjson.md).
 */
const JSON_STREAM_NOTICE =
  'svcadm: this command prints JSON as NDJSON, one document a line (-o ndjson prints the same without this notice)';

/**
 * The one place that branches on the output format (as cli/cli's Exporter): commands hand it data and a table spec.
 * json: the value as the service sent it (reshaped by --query, coloured on a terminal); yaml: the same as YAML;
 * ndjson: one compact value per line; raw: strings bare and scalars one per line, as `jq -r` (render/raw-text.ts);
 * table: fitted to a terminal, plain aligned text otherwise; wide: every column, nothing cut. `--no-headers` drops a
 * table's heading line.
 */
export class Printer {
  readonly #io: IOStreams;
  readonly #clock: Clock;
  readonly #format: OutputFormat;
  readonly #formatChosen: boolean;
  readonly #query: Query | undefined;
  readonly #color: boolean;
  #received: ((bytes: number) => void) | undefined;
  /** stdout is a terminal: JSON is coloured there (with colour on), tables fitted to its width. */
  readonly #tty: boolean;
  readonly #redraw: boolean;
  readonly #headers: boolean;
  readonly #accessible: boolean;
  /** Items `--query` was applied to one at a time (ndjson, raw streams), and how many it left something of. */
  readonly #queried = { items: 0, matched: 0, told: false };
  /** A tenant of a run across several: its tables go here, to be merged with the others' (`TenantOutput`). */
  readonly #collect: ((spec: TableSpec) => void) | undefined;
  /** `-o json` or `--json` as given: not JSON as the default (off a terminal, for --query or an agent). */
  readonly #jsonAsked: boolean;

  constructor(
    io: IOStreams,
    globals: Pick<Globals, 'format' | 'formatChosen' | 'query' | 'color' | 'redraw'> &
      Partial<Pick<Globals, 'headers' | 'accessible' | 'outputArgs'>>,
    clock: Clock,
    collect?: (spec: TableSpec) => void,
  ) {
    this.#collect = collect;
    this.#io = io;
    this.#clock = clock;
    this.#format = globals.format;
    this.#formatChosen = globals.formatChosen;
    this.#query = globals.query;
    this.#color = globals.color.stdout;
    this.#tty = io.stdout.isTTY === true;
    this.#redraw = globals.redraw.stdout;
    this.#headers = globals.headers !== false;
    this.#accessible = globals.accessible === true;
    const [flag, value] = globals.outputArgs ?? [];
    this.#jsonAsked = flag === '--json' || (flag === '-o' && value === 'json');
  }

  get #isTable(): boolean {
    return this.#format === 'table' || this.#format === 'wide';
  }

  /** One resource: the document, one NDJSON line, or its table. */
  async one(value: unknown, table: () => TableSpec): Promise<void> {
    if (this.#isTable) return this.#table(table());
    await this.#value(value, Array.isArray(value) ? value : [value]);
    this.#tellUnmatched();
  }

  /**
   * One page of a list: the body as sent (json, yaml), its items (ndjson), or the table of its items; then, on
   * stderr, whether more exist and how to get them (every format), or what an empty page means instead of an empty
   * table.
   */
  async page<T>(
    body: unknown,
    items: readonly T[],
    table: (items: readonly T[]) => TableSpec,
    hints: PageHints = {},
  ): Promise<void> {
    if (!this.#isTable) {
      await this.#value(body, items);
      this.#tellUnmatched();
    } else if (items.length === 0) return this.#io.notice(hints.empty ?? NOTHING);
    else await this.#table(table(items));
    const more = items.length > 0 ? hints.more?.() : undefined;
    if (more !== undefined) this.#io.notice(moreResultsLine(more, items.length, this.#isTable));
  }

  /**
   * Every page of a list, each item once, in order. Complete or nothing: `json` (one array) and `yaml` (one
   * sequence) are kept as text, a page at a time, and written once the last page is in, so that a run that fails
   * or is stopped part of the way prints nothing on stdout; a table collects every row (it needs them for widths);
   * `ndjson` streams a line per item. A failure or a stop after the first page says on stderr how much was printed
   * (`incomplete: printed 300 of 1200`). A progress line on stderr counts what was fetched.
   */
  async all<T>(
    pages: AsyncIterable<PagerPage<T>>,
    table: (items: readonly T[]) => TableSpec,
    empty = NOTHING,
  ): Promise<void> {
    keepYoungGenerationSmall();
    const progress = this.#io.progress(() => this.#clock.now());
    const held: T[] = [];
    const ndjson = this.#format === 'ndjson';
    // raw is one value (an array of every item), held as a table is.
    const hold = this.#isTable || this.#format === 'raw' || (this.#query !== undefined && !ndjson);
    const yaml = this.#format === 'yaml' && !hold ? await import('../render/yaml-text.js') : undefined;
    const document: string[] = [];
    const spooled = isSpool(this.#io.stdout);
    // A tenant of a run across several hands its table on a page at a time: the merged view keeps only the widths of
    // its rows, which wait on disk (pages with the same columns, as every command's own table has, make one list).
    const byPage = this.#isTable && this.#collect !== undefined;
    let tabled = 0;
    let count = 0;
    let printed = 0;
    let total: number | undefined;
    let started = false;
    /** What is held until the end, in items and in characters of its text (its JSON, for held items). */
    let heldItems = 0;
    let heldBytes = 0;
    const holding = (items: number, bytes: number) => {
      heldItems += items;
      heldBytes += bytes;
      if (spooled) spooledListText(bytes);
      if (heldItems > ALL_HELD_MAX_ITEMS || heldBytes > ALL_HELD_MAX_BYTES) throw listTooLong();
    };
    try {
      for await (const page of pages) {
        started = true;
        total = page.total;
        progress.update(fetchedText(page.fetched, page.total));
        if (page.items.length === 0) continue;
        if (byPage) {
          holding(page.items.length, JSON.stringify(page.items).length);
          tabled += page.items.length;
          await this.#table(table(page.items));
        } else if (hold) {
          holding(page.items.length, JSON.stringify(page.items).length);
          held.push(...page.items);
        } else if (ndjson) {
          await this.#lines(page.items);
          printed += page.items.length;
        } else if (yaml) {
          count += page.items.length;
          const text = page.items.map((item) => yaml.yamlSequenceEntry(item)).join('');
          holding(page.items.length, text.length);
          document.push(text);
        } else {
          let text = '';
          for (const item of page.items) {
            const element = JSON.stringify(item, null, 2).replace(/\n/g, '\n  ');
            text += `${count === 0 ? '[\n  ' : ',\n  '}${element}`;
            count++;
          }
          const painted = this.#paintJson(escapeJsonText(text));
          holding(page.items.length, painted.length);
          // A tenant's private file is complete or nothing by itself (a failed tenant's is discarded): each page goes
          // there as it comes, and the tenants at once hold no list whole.
          if (spooled) await this.#io.write(painted);
          else document.push(painted);
        }
      }
    } catch (err) {
      progress.done();
      // Said whatever --quiet asks: what is on stdout is not the list.
      if (started) this.#io.stderr.write(`${incompleteLine(printed, total)}\n`);
      throw err;
    } finally {
      progress.done();
    }
    if (byPage) return tabled === 0 ? this.#io.notice(empty) : undefined;
    if (this.#isTable) return held.length === 0 ? this.#io.notice(empty) : this.#table(table(held));
    if (hold) return this.#value(held, held);
    if (ndjson) return this.#tellUnmatched();
    if (count === 0) return this.#io.write('[]\n');
    for (let text = document.shift(); text !== undefined; text = document.shift()) await this.#io.write(text);
    if (!yaml) await this.#io.write(this.#paintJson('\n]\n'));
  }

  /**
   * The result of an action (a delete): the value as data, or a sentence on stdout and notes on stderr. When stdout
   * cannot take it, the action has still happened: the result goes with the error, on stderr.
   */
  async result(value: unknown, human: { text: string; notices?: readonly string[] }): Promise<void> {
    try {
      if (!this.#isTable) return await this.#value(value, [value]);
      await this.#io.write(human.text);
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      const said = this.#isTable ? [human.text.trim(), ...(human.notices ?? [])].join('; ') : JSON.stringify(value);
      throw err.addHint(`the request went through: ${said}`);
    }
    for (const notice of human.notices ?? []) this.#io.notice(notice);
  }

  /**
   * A value announced for a script that asked for data (`-o json|yaml|ndjson`, `--json`): one JSON line (or a YAML
   * document); else the text for a person, even off a terminal: a long-running command's banner is read by people
   * first.
   */
  async announce(value: unknown, text: string): Promise<void> {
    if (!this.#formatChosen || this.#isTable) return this.#io.write(text);
    if (this.#format === 'yaml') return this.#value(value, [value]);
    return this.#lines([value]);
  }

  /** An answer with nothing to show (a 204): nothing on stdout in any format, `text` on stderr in the table view. */
  empty(text: string): void {
    if (this.#isTable) this.#io.notice(text);
  }

  /**
   * Reference text for people (`svcadm commands`), or its value when a script asked for JSON (`-o json`, `--json`):
   * like a banner, it is text by default even off a terminal.
   */
  async reference(value: unknown, text: string): Promise<void> {
    if (asksForData({ format: this.#format, formatChosen: this.#formatChosen })) return this.#value(value, [value]);
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

  /** Told of the bytes a stream brings from the network, for the memory policy's collections. */
  received(bytes: number): void {
    this.#received ??= collectAfterBytes(MINOR_COLLECTION_BYTES);
    this.#received(bytes);
  }

  /** Where a stream of items goes: NDJSON lines, YAML documents, lines of text, or the live view on a terminal. */
  async stream<I, S, R>(formats: StreamFormats<I, S, R>, initial: S): Promise<ItemStream<I, S>> {
    keepYoungGenerationSmall();
    const io = this.#io;
    const notice = (text: string, always?: boolean) => (always ? io.stderr.write(`${text}\n`) : io.notice(text));
    const spoken = this.#accessible && io.stderr.isTTY === true && !io.quiet ? formats.view : undefined;
    const status = spoken ? await statusLines(spoken, (line) => io.stderr.write(`${line}\n`), this.#clock) : undefined;
    const plain = (write: (items: readonly I[]) => Promise<void>): ItemStream<I, S> => ({
      write,
      notice,
      // Accessible mode says the status in plain lines: the tail hands it over as to the live view.
      live: status !== undefined,
      status: (s) => status?.update(s),
      close: (final) => {
        if (final !== undefined) status?.final(final);
        this.#tellUnmatched();
      },
    });
    const query = this.#query;
    if (this.#format === 'yaml') {
      const { yamlStreamDocument } = await import('../render/yaml-text.js');
      return plain((items) =>
        io.write(items.map((item) => yamlStreamDocument(this.#shape(formats.value(item)))).join('')),
      );
    }
    if (!this.#isTable) {
      if (this.#jsonAsked) io.notice(JSON_STREAM_NOTICE);
      if (query || this.#format === 'raw')
        return plain((items) => this.#lines(items.map((item) => formats.value(item))));
      const paint = this.#color && this.#tty;
      return plain((items) => {
        // One write per batch.
        const joiner = new ByteJoiner();
        for (const item of items) for (const piece of formats.json(item)) joiner.add(piece);
        const bytes = joiner.bytes();
        return io.write(paint ? colorJson(bytes.toString('utf8')) : bytes, STREAM_QUEUE_BYTES);
      });
    }
    const view = await formats.view();
    const color = this.#color;
    const kind = streamViewKind({
      format: this.#format,
      redraw: this.#redraw,
      stdin: io.stdin,
      stdout: io.stdout,
      env: io.env,
    });
    if (kind === 'interactive') {
      const { startLiveTail } = await import('./live/start.js');
      return startLiveTail({ io, view, formats, initial, color, clock: this.#clock });
    }
    if (kind === 'redraw') {
      const { startTailScreen } = await import('./tail-screen.js');
      return startTailScreen(io, view, initial, color, this.#clock);
    }
    // Off a terminal, on TERM=dumb, -o wide or accessible mode: lines one after another, cut to the terminal only for
    // `table` (never in accessible mode: a braille display pans along a line, a cut loses what it would have read).
    const cut = this.#format === 'table' && this.#tty && !this.#accessible;
    const width = cut ? (io.stdout.columns ?? 80) : Number.POSITIVE_INFINITY;
    const format = view.lines(color, this.#headers, this.#accessible);
    const whole = this.#accessible;
    return plain((items) => io.write(items.map((item) => format(view.row(item, whole), width)).join('')));
  }

  /** --query applied, when given. */
  #shape(value: unknown): unknown {
    return this.#query ? this.#query.search(value) : value;
  }

  /** A value in the data formats: the document (json, yaml, raw), or `items` a line each (ndjson). */
  async #value(value: unknown, items: readonly unknown[]): Promise<void> {
    if (this.#format === 'ndjson') return this.#lines(items);
    const shaped = this.#shape(value);
    if (this.#format === 'raw') {
      if (shaped === null) return this.#rawNull();
      return this.#io.write(rawText(shaped));
    }
    if (this.#format === 'yaml') {
      const { yamlDocument } = await import('../render/yaml-text.js');
      return this.#io.write(yamlDocument(shaped));
    }
    return this.#io.write(this.#paintJson(jsonDocument(shaped)));
  }

  /**
   * NDJSON: a compact line per item (raw: `jq -r`'s lines of each); with --query, per item, and an item it leaves
   * nothing of (null) is skipped.
   */
  async #lines(items: readonly unknown[]): Promise<void> {
    const raw = this.#format === 'raw';
    let text = '';
    for (const item of items) {
      const shaped = this.#shape(item);
      if (this.#query) {
        this.#queried.items++;
        if (shaped === null) continue;
        this.#queried.matched++;
      }
      text += raw ? rawText(shaped) : jsonLine(shaped);
    }
    if (text !== '') await this.#io.write(raw ? text : this.#paintJson(text));
  }

  /**
   * Once a run is over: when `--query` was applied item by item and left nothing of every one, a misspelt field is
   * the likely cause, and an empty stdout alone would hide it (in CI above all). Once per run; exit stays 0.
   */
  #tellUnmatched(): void {
    const q = this.#queried;
    if (this.#query === undefined || q.told || q.items === 0 || q.matched > 0) return;
    q.told = true;
    const items = `${q.items === 1 ? 'the one item' : `any of the ${q.items} items`}`;
    this.#io.notice(
      `--query '${neutralize(this.#query.text)}' matched nothing in ${items} (a misspelt field gives nothing; -o json without --query shows the fields)`,
    );
  }

  /**
   * `-o raw` of a `null` result prints nothing, so that `id=$(…)` is empty rather than the word `null`; one notice says
   * why (cli.md "Raw output", round 5; docs/decisions/2026-11-28-raw-null-prints-nothing.md). Exit stays 0.
   */
  #rawNull(): void {
    const what = this.#query ? `--query '${neutralize(this.#query.text)}' matched nothing` : 'the result is null';
    this.#io.notice(`${what}: nothing printed (-o raw prints nothing for null; -o json prints null)`);
  }

  /** JSON is coloured on a terminal only (never piped, even with FORCE_COLOR: it is read by programs there). */
  #paintJson(text: string): string {
    return this.#color && this.#tty ? colorJson(text) : text;
  }

  /**
   * A tenant's failure while a stream merged across tenants runs (`events tail --profiles`), said as every command
   * across tenants says one: a `{"profile","error"}` line among the items (ndjson), one JSON line on stderr when data
   * was asked for, else `svcadm: <profile>: <message> — <hint>` on stderr. Resolves once it is written.
   */
  async streamFailure(profile: string, error: TenantError): Promise<void> {
    if (this.#format === 'ndjson') return this.#io.write(jsonLine({ profile, error }));
    if (asksForData({ format: this.#format, formatChosen: this.#formatChosen })) {
      this.#io.stderr.write(`${JSON.stringify({ profile, error })}\n`);
      return;
    }
    this.#io.stderr.write(tenantFailureLine(profile, error));
  }

  /**
   * The result of a run across several tenants (`--profiles`, `TenantOutput`): the tenants' tables merged, with the
   * lines they printed beside them; or the json or yaml array of their entries (already shaped by `--query`, each as
   * its tenant printed it).
   */
  async tenants(output: TenantOutput, profiles: readonly string[]): Promise<void> {
    if (this.#isTable) return this.#tenantTables(output, profiles);
    if (this.#format === 'ndjson' || this.#format === 'raw') return;
    const entries = output.entries(profiles);
    if (this.#format === 'yaml') {
      const yaml = await import('../render/yaml-text.js');
      if (entries.length === 0) return this.#io.write(yaml.yamlDocument([]));
      // Entry by entry, and a list item by item as it is read back: `[a, b]` in YAML is its entries one after another.
      const batch = new TextBatch((text) => this.#io.write(text));
      for (const entry of entries) {
        if (!('file' in entry)) {
          await batch.add(yaml.yamlSequenceEntry(entry));
          continue;
        }
        const head = { profile: entry.profile, domain: entry.domain };
        let list = false;
        let items = 0;
        for await (const part of TenantOutput.resultParts(entry)) {
          if (part.kind === 'value') for (const piece of yaml.yamlEntryPieces(head, part.value)) await batch.add(piece);
          else if (part.kind === 'array') list = true;
          else {
            if (items++ === 0) await batch.add(yaml.yamlEntryOpening(head));
            await batch.add(yaml.yamlResultItem(part.value));
          }
        }
        if (list && items === 0) await batch.add(yaml.yamlSequenceEntry({ ...head, result: [] }));
      }
      return batch.flush();
    }
    const pieces = TenantOutput.jsonArray(entries);
    // Coloured as a whole (on a terminal); else each piece written and let go: the heads and errors made safe here,
    // the results were by their tenants.
    if (this.#color && this.#tty) {
      let text = '';
      for await (const piece of pieces) text += piece;
      return this.#io.write(colorJson(escapeJsonText(text)));
    }
    const batch = new TextBatch((text) => this.#io.write(escapeJsonText(text)));
    for await (const piece of pieces) await batch.add(piece);
    await batch.flush();
  }

  /**
   * The tenants' tables merged (`mergePlan`), written as their rows are read back from the tenants' files (the
   * widths were known before the first row); then the lines the tenants printed beside tables.
   */
  async #tenantTables(output: TenantOutput, profiles: readonly string[]): Promise<void> {
    const { mergePlan, profileDetail, profileRow } = await import('../render/tenant-tables.js');
    const { listLines, renderTable } = await import('../render/table-text.js');
    const tenants = output.tableSegments(profiles);
    const plan = mergePlan(tenants);
    const options = this.#tableOptions();
    const batch = new TextBatch((text) => this.#io.write(text));
    let first = true;
    let hidden: readonly string[] = [];
    const startTable = async (): Promise<void> => {
      if (hidden.length > 0) {
        await batch.flush();
        this.#tellHidden(hidden);
      }
      if (!first) await batch.add('\n');
      first = false;
    };
    let lines: ReturnType<typeof listLines> | undefined;
    for (const [t, { profile, segments }] of tenants.entries()) {
      const records = output.spooledTables(profile);
      const next = async () => {
        const { value, done } = await records.next();
        if (done === true) throw new Error(`the tables of ${profile} ended early`);
        return value;
      };
      for (const [s, segment] of segments.entries()) {
        const place = plan[t]?.[s];
        if (segment.kind === 'detail' || place?.kind !== 'list') {
          const record = await next();
          if (record.kind !== 'detail') throw new Error(`a row of ${profile} where a detail view was`);
          await startTable();
          const { text, hidden: gone } = renderTable(profileDetail(profile, record.spec), options);
          await batch.add(text);
          hidden = gone;
          continue;
        }
        if (place.starts || lines === undefined) {
          await startTable();
          lines = listLines(place.list.columns, place.list.widths, options);
          hidden = lines.hidden;
          if (lines.heading !== undefined) await batch.add(`${lines.heading}\n`);
        }
        for (let n = 0; n < segment.rows; n++) {
          const record = await next();
          if (record.kind !== 'row') throw new Error(`a detail view of ${profile} where a row was`);
          await batch.add(`${lines.row(profileRow(profile, record.cells))}\n`);
        }
      }
      // Read to its end: the tenant's file is then removed, and what it made collected.
      if ((await records.next()).done !== true) throw new Error(`the tables of ${profile} went on past their rows`);
    }
    await batch.flush();
    if (hidden.length > 0) this.#tellHidden(hidden);
    for await (const line of output.tableText(profiles)) await batch.add(line);
    await batch.flush();
  }

  /** How a table is laid out here: the terminal's width for `table` on one, colours, headings, accessible mode. */
  #tableOptions() {
    const width = this.#format === 'table' && this.#tty ? (this.#io.stdout.columns ?? 80) : undefined;
    return {
      width,
      wide: this.#format === 'wide',
      color: this.#color,
      headers: this.#headers,
      accessible: this.#accessible,
    };
  }

  /** The columns a table left out to fit, said on stderr. */
  #tellHidden(hidden: readonly string[]): void {
    const names = hidden.map((name) => name.toUpperCase()).join(', ');
    this.#io.notice(`Hidden to fit: ${names} (-o wide shows all)`);
  }

  async #table(spec: TableSpec): Promise<void> {
    if (this.#collect) return this.#collect(spec);
    const { renderTable } = await import('../render/table-text.js');
    const { text, hidden } = renderTable(spec, this.#tableOptions());
    await this.#io.write(text);
    if (hidden.length > 0) this.#tellHidden(hidden);
  }
}

/**
 * `--help` with JSON asked for: writes the command's catalog entry (`svcadm commands --json`) and returns true;
 * false leaves the help to commander. Called before the global options are parsed, from what commander read.
 */
export function writeHelpEntry(
  stdout: IOStreams['stdout'],
  view: Pick<Globals, 'format' | 'formatChosen'> | undefined,
  entry: () => unknown,
): boolean {
  if (view === undefined || !asksForData(view)) return false;
  stdout.write(jsonDocument(entry()));
  return true;
}
