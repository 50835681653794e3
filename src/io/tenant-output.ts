import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Env, OutStream } from '../context.js';
import type { OutputFormat } from '../global-options.js';
import { jsonLine } from '../render/json.js';
import type { Cell, DetailTable, TableSpec } from '../render/table-model.js';
import type { TableSegment, TenantSegments } from '../render/tenant-tables.js';
import { neutralize } from '../text/sanitize.js';
import { type JsonPart, jsonParts } from '../util/json-elements.js';
import type { IOStreams } from './io-streams.js';
import { dropSpooled, SpoolFolder, type SpoolWriter, spooledLines, spooledText } from './tenant-spool.js';

/** The widest cell of each column of some rows (`cellWidths` of render/table-text.ts). */
type CellWidths = (columns: number, rows: readonly (readonly Cell[])[]) => number[];

/**
 * A tenant's failure as its error envelope holds it (`errorEnvelope` in error-report.ts), or a tenant stopped before it
 * finished (`cancelledError`: no exit code of its own).
 */
export interface TenantError {
  readonly message: string;
  readonly hint?: string;
  readonly exit_code: number | null;
}

/**
 * **The** entry of a tenant stopped before it finished, by `--fail-fast` (cli.md "Many tenants", round 5):
 * `{"profile","domain","error":{"status":null,"code":"cancelled","message",…,"exit_code":null}}`. It never changes
 * the exit code.
 */
export function cancelledError(message: string): TenantError & { readonly status: null; readonly code: 'cancelled' } {
  return { status: null, code: 'cancelled', message, exit_code: null };
}

/** Where one tenant's run writes: its own stdout and stderr, and, in the table views, where its tables go. */
export interface TenantStreams {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Table views: the tenant's tables, merged with the others' once every tenant is done. */
  readonly collect: ((spec: TableSpec) => void) | undefined;
}

/** One tenant's part of the merged document (json, yaml), in profile order. */
export type TenantEntry =
  /** `file`: the temporary file of the JSON the tenant printed (a document can be large: never held). */
  | { readonly profile: string; readonly domain: string | null; readonly file: string }
  | { readonly profile: string; readonly domain: string | null; readonly error: TenantError };

/** A tenant's failure for people, on stderr: `svcadm: <profile>: <message> — <hint>`. */
export function tenantFailureLine(profile: string, error: TenantError): string {
  const hint = error.hint ? ` — ${neutralize(error.hint)}` : '';
  return `svcadm: ${profile}: ${neutralize(error.message)}${hint}\n`;
}

/** Splits what is written into whole lines and hands each on: a tenant's lines never interleave with another's. */
class LineWriter extends Writable {
  #partial = '';

  constructor(private readonly onLines: (lines: string[]) => Promise<void> | void) {
    super({ decodeStrings: false });
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    const text = this.#partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const end = text.lastIndexOf('\n');
    if (end === -1) {
      this.#partial = text;
      done();
      return;
    }
    this.#partial = text.slice(end + 1);
    Promise.resolve(this.onLines(text.slice(0, end).split('\n'))).then(() => done(), done);
  }

  override _final(done: (err?: Error | null) => void): void {
    const rest = this.#partial;
    this.#partial = '';
    if (rest === '') {
      done();
      return;
    }
    Promise.resolve(this.onLines([rest])).then(() => done(), done);
  }
}

/**
 * A tenant's line on the shared stderr: `svcadm: prod-eu: …` for svcadm's own lines, `prod-eu: …` for the others, a
 * JSON line (an aside asked for as data) with `"profile"` as its first member.
 */
export function tenantStderrLine(profile: string, line: string): string {
  if (line.startsWith('{') && line.endsWith('}')) {
    return line === '{}'
      ? `{"profile":${JSON.stringify(profile)}}`
      : `{"profile":${JSON.stringify(profile)},${line.slice(1)}`;
  }
  if (line.startsWith('svcadm: ')) return `svcadm: ${profile}: ${line.slice('svcadm: '.length)}`;
  return `${profile}: ${line}`;
}

/** A tenant's stderr: its lines on the shared stderr, whole, each marked with its profile (`tenantStderrLine`). */
export function tenantStderr(io: IOStreams, profile: string): Writable {
  return new LineWriter((lines) => {
    io.stderr.write(lines.map((line) => `${tenantStderrLine(profile, line)}\n`).join(''));
  });
}

/**
 * A tenant's `-o raw` lines on the shared stdout as they come, each `<profile>\t<value>` (cli.md "Many tenants"). The
 * tenant's raw text is already one value a line, a tab or a line break in a string written escaped (`rawText`), so
 * the tab after the profile is the only one on the line.
 */
function rawLines(io: IOStreams, profile: string): Writable {
  return new LineWriter((lines) => {
    const text = lines
      .filter((line) => line !== '')
      .map((line) => `${profile}\t${line}\n`)
      .join('');
    return text === '' ? undefined : io.write(text);
  });
}

/** JSON text with every line after the first indented by `indent` (a string in JSON holds no raw line break). */
function indented(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/** A tenant's table, as it is read back in the order it was printed. */
export type SpooledTable =
  | { readonly kind: 'detail'; readonly spec: DetailTable }
  | { readonly kind: 'row'; readonly cells: Cell[] };

/** What a tenant of a table view wrote: its tables' rows (and detail views), and the text beside them. */
interface TenantTableFiles {
  readonly tables: SpoolWriter;
  readonly text: SpoolWriter;
  readonly segments: TableSegment[];
}

/** The JSON of a tenant's result, trimmed at its end, with every line after the first indented by `indent`. */
async function* indentedResult(file: string, indent: string): AsyncGenerator<string> {
  let started = false;
  // Trailing white space is held back until more text follows it: the result ends where its text does.
  let held = '';
  for await (const piece of spooledText(file)) {
    const text = held + piece;
    const end = text.trimEnd().length;
    held = text.slice(end);
    if (end === 0) continue;
    started = true;
    yield text.slice(0, end).replace(/\n/g, `\n${indent}`);
  }
  if (!started) yield 'null';
}

/**
 * The output of a run across several tenants (cli.md, "Many tenants"): gives each tenant its streams and puts their
 * results together. Table views: the tenants' tables merged (a leading PROFILE column, rows by profile in profile
 * order), a failed tenant one line on stderr. json and yaml: one array in profile order of `{profile, domain,
 * result}` or `{profile, domain, error}`, written once every tenant is done (complete or nothing); each `result` is
 * what the command prints for that tenant alone. ndjson: `{profile, item}` lines as the items come, and
 * `{profile, error}` per failure; raw: `<profile>\t<value>` lines as they come.
 *
 * Memory does not grow with the number of tenants: each finished tenant's result (json, yaml) or tables (their rows,
 * and the text beside them) waits in a private temporary file until it is written out in profile order; of a table
 * only what the merged widths need stays in memory (docs/decisions/2026-11-28-tenant-results-spooled.md).
 */
export class TenantOutput {
  readonly #io: IOStreams;
  readonly #format: OutputFormat;
  readonly #spool: SpoolFolder | undefined;
  /** The table views' measure of cells (table-text is a lazy chunk, loaded for a table view only). */
  readonly #cellWidths: CellWidths | undefined;
  readonly #documents = new Map<string, SpoolWriter>();
  readonly #tables = new Map<string, TenantTableFiles>();
  readonly #entries = new Map<string, TenantEntry>();
  #files = 0;

  private constructor(
    io: IOStreams,
    format: OutputFormat,
    spool: SpoolFolder | undefined,
    cellWidths: CellWidths | undefined,
  ) {
    this.#io = io;
    this.#format = format;
    this.#spool = spool;
    this.#cellWidths = cellWidths;
  }

  /**
   * The output of a run in `format`; json, yaml and the table views get their temporary folder now (under `TMPDIR`
   * of `env`): one that cannot be made is an OutputError (exit 74) before any tenant runs. `close()` removes it.
   */
  static async open(io: IOStreams, format: OutputFormat, env: Env): Promise<TenantOutput> {
    const spooled = format !== 'ndjson' && format !== 'raw';
    const table = format === 'table' || format === 'wide';
    const cellWidths = table ? (await import('../render/table-text.js')).cellWidths : undefined;
    return new TenantOutput(io, format, spooled ? await SpoolFolder.create(env) : undefined, cellWidths);
  }

  get #isTable(): boolean {
    return this.#format === 'table' || this.#format === 'wide';
  }

  /** The format each tenant prints in: yaml is made from each tenant's JSON (the same value). */
  get tenantFormat(): OutputFormat {
    return this.#format === 'yaml' ? 'json' : this.#format;
  }

  /** A failure to write a temporary file: the run reports it (exit 74) instead of an output that would lack a part. */
  get failure(): Error | undefined {
    return this.#spool?.failure;
  }

  #writer(spool: SpoolFolder, kind: string): SpoolWriter {
    return spool.writer(`${String(this.#files++).padStart(4, '0')}.${kind}`);
  }

  /** The streams of `profile`'s run. */
  streams(profile: string): TenantStreams {
    const io = this.#io;
    const stderr = tenantStderr(io, profile);
    if (this.#format === 'ndjson') {
      const prefix = `{"profile":${JSON.stringify(profile)},"item":`;
      const stdout = new LineWriter((lines) => {
        const text = lines
          .filter((line) => line !== '')
          .map((line) => `${prefix}${line}}\n`)
          .join('');
        return text === '' ? undefined : io.write(text);
      });
      return { stdout, stderr, collect: undefined };
    }
    if (this.#format === 'raw') return { stdout: rawLines(io, profile), stderr, collect: undefined };
    const spool = this.#spool;
    if (spool === undefined) throw new Error('the output across tenants has no temporary folder');
    if (this.#isTable) {
      const files: TenantTableFiles = {
        tables: this.#writer(spool, 'tables'),
        text: this.#writer(spool, 'text'),
        segments: [],
      };
      this.#tables.set(profile, files);
      const cellWidths = this.#cellWidths;
      if (cellWidths === undefined) throw new Error('a table view across tenants without its measure of cells');
      return { stdout: files.text, stderr, collect: (spec) => collectTable(files, spec, cellWidths) };
    }
    const document = this.#writer(spool, 'json');
    this.#documents.set(profile, document);
    return { stdout: document, stderr, collect: undefined };
  }

  /** `profile` ran to the end (its stdout ended). */
  async succeeded(profile: string, domain: string | undefined): Promise<void> {
    const document = this.#documents.get(profile);
    this.#documents.delete(profile);
    if (document !== undefined) this.#entries.set(profile, { profile, domain: domain ?? null, file: document.path });
    const tables = this.#tables.get(profile)?.tables;
    if (tables !== undefined) {
      tables.end();
      await finished(tables);
    }
  }

  /** `profile` failed: reported now on stderr (tables, raw) or stdout (ndjson), or kept for the document. */
  async failed(profile: string, domain: string | undefined, envelope: { readonly error: TenantError }): Promise<void> {
    const document = this.#documents.get(profile);
    this.#documents.delete(profile);
    const tables = this.#tables.get(profile);
    this.#tables.delete(profile);
    for (const writer of [document, tables?.tables, tables?.text]) {
      if (writer === undefined) continue;
      writer.destroy();
      await dropSpooled(writer.path);
    }
    const { error } = envelope;
    if (this.#format === 'ndjson') return this.#io.write(jsonLine({ profile, error }));
    // raw is data: the failure is the `{"profile","error"}` line a merged tail writes on stderr.
    if (this.#format === 'raw') {
      this.#io.stderr.write(jsonLine({ profile, error }));
      return;
    }
    if (!this.#isTable) {
      this.#entries.set(profile, { profile, domain: domain ?? null, error });
      return;
    }
    this.#io.stderr.write(tenantFailureLine(profile, error));
  }

  /** Removes the temporary folder: on every way out of the run. */
  async close(): Promise<void> {
    for (const writer of this.#documents.values()) writer.destroy();
    for (const files of this.#tables.values()) {
      files.tables.destroy();
      files.text.destroy();
    }
    await this.#spool?.remove();
  }

  /** What each tenant that succeeded printed as tables (in profile order): what the merged widths need. */
  tableSegments(profiles: readonly string[]): TenantSegments[] {
    return profiles.flatMap((profile) => {
      const files = this.#tables.get(profile);
      return files === undefined ? [] : [{ profile, segments: files.segments }];
    });
  }

  /** `profile`'s tables read back, in the order they were printed: each detail view, each row of its lists. */
  async *spooledTables(profile: string): AsyncGenerator<SpooledTable> {
    const files = this.#tables.get(profile);
    if (files === undefined) return;
    for await (const line of spooledLines(files.tables.path)) {
      const record = JSON.parse(line) as { detail: DetailTable } | Cell[];
      yield Array.isArray(record) ? { kind: 'row', cells: record } : { kind: 'detail', spec: record.detail };
    }
    await dropSpooled(files.tables.path);
  }

  /** The text the tenants of a table view printed beside tables, a line at a time, each marked with its profile. */
  async *tableText(profiles: readonly string[]): AsyncGenerator<string> {
    for (const profile of profiles) {
      const files = this.#tables.get(profile);
      if (files === undefined) continue;
      for await (const line of spooledLines(files.text.path)) if (line !== '') yield `${profile}: ${line}\n`;
      await dropSpooled(files.text.path);
    }
  }

  /** The entries of the json or yaml document, in profile order (a tenant neither done nor failed is left out). */
  entries(profiles: readonly string[]): TenantEntry[] {
    return profiles.flatMap((profile) => {
      const entry = this.#entries.get(profile);
      return entry === undefined ? [] : [entry];
    });
  }

  /**
   * The json document of `entries`, in pieces: each result as its tenant printed it (already made safe for a
   * terminal), read back from its file and indented into the array piece by piece, so that no result is ever held
   * whole.
   */
  static async *jsonArray(entries: readonly TenantEntry[]): AsyncGenerator<string> {
    if (entries.length === 0) {
      yield '[]\n';
      return;
    }
    let first = true;
    for (const entry of entries) {
      yield `${first ? '[\n' : ',\n'}  {\n    "profile": ${JSON.stringify(entry.profile)},\n    "domain": ${JSON.stringify(entry.domain)},\n`;
      first = false;
      if ('file' in entry) {
        yield '    "result": ';
        yield* indentedResult(entry.file, '    ');
        await dropSpooled(entry.file);
      } else yield `    "error": ${indented(JSON.stringify(entry.error, null, 2), '    ')}`;
      yield '\n  }';
    }
    yield '\n]\n';
  }

  /**
   * A tenant's result read back from its JSON file for yaml: a list element by element as each ends (one element in
   * memory at once, never a tenant's list whole, never every tenant's), anything else whole.
   */
  static async *resultParts(entry: { readonly file: string }): AsyncGenerator<JsonPart> {
    yield* jsonParts(spooledText(entry.file));
    await dropSpooled(entry.file);
  }
}

/** How many characters of table records are written to a tenant's file at once. */
const TABLE_WRITE_CHARS = 64 * 1024;

/**
 * A tenant's table: a detail view kept whole in its file, a list's rows a line each, and in memory only its columns,
 * the widths of its cells and its count of rows.
 */
function collectTable(files: TenantTableFiles, spec: TableSpec, cellWidths: CellWidths): void {
  if (spec.kind === 'detail') {
    files.segments.push({ kind: 'detail' });
    files.tables.write(`${JSON.stringify({ detail: spec })}\n`);
    return;
  }
  files.segments.push({
    kind: 'list',
    columns: spec.columns,
    widths: cellWidths(spec.columns.length, spec.rows),
    rows: spec.rows.length,
  });
  let text = '';
  for (const row of spec.rows) {
    text += `${JSON.stringify(row)}\n`;
    if (text.length >= TABLE_WRITE_CHARS) {
      files.tables.write(text);
      text = '';
    }
  }
  if (text !== '') files.tables.write(text);
}
