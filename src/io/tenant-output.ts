import { Writable } from 'node:stream';
import type { OutStream } from '../context.js';
import type { OutputFormat } from '../global-options.js';
import { jsonLine } from '../render/json.js';
import type { TableSpec } from '../render/table-model.js';
import type { TenantTables } from '../render/tenant-tables.js';
import { neutralize } from '../text/sanitize.js';
import type { IOStreams } from './io-streams.js';

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
  /** `result`: the JSON the tenant printed, in the pieces it wrote them (a document can be large: never joined). */
  | { readonly profile: string; readonly domain: string | null; readonly result: readonly string[] }
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

/** Collects what is written, as text. */
class TextCollector extends Writable {
  readonly chunks: string[] = [];

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    done();
  }

  text(): string {
    return this.chunks.join('');
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

/** A tenant's printed JSON as a value (null when it printed nothing: an answer without a body). */
function resultValue(pieces: readonly string[]): unknown {
  const text = pieces.join('');
  return text === '' ? null : JSON.parse(text);
}

/** JSON text with every line after the first indented by `indent` (a string in JSON holds no raw line break). */
function indented(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/**
 * The output of a run across several tenants (cli.md, "Many tenants"): gives each tenant its streams and puts their
 * results together. Table views: the tenants' tables merged (a leading PROFILE column, rows by profile in profile
 * order), a failed tenant one line on stderr. json and yaml: one array in profile order of `{profile, domain,
 * result}` or `{profile, domain, error}`, written once every tenant is done (complete or nothing); each `result` is
 * what the command prints for that tenant alone. ndjson: `{profile, item}` lines as the items come, and
 * `{profile, error}` per failure.
 */
export class TenantOutput {
  readonly #io: IOStreams;
  readonly #format: OutputFormat;
  readonly #tables = new Map<string, TableSpec[]>();
  readonly #documents = new Map<string, TextCollector>();
  readonly #texts = new Map<string, TextCollector>();
  readonly #entries = new Map<string, TenantEntry>();

  constructor(io: IOStreams, format: OutputFormat) {
    this.#io = io;
    this.#format = format;
  }

  get #isTable(): boolean {
    return this.#format === 'table' || this.#format === 'wide';
  }

  /** The format each tenant prints in: yaml is made from each tenant's JSON (the same value). */
  get tenantFormat(): OutputFormat {
    return this.#format === 'yaml' ? 'json' : this.#format;
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
    const collector = new TextCollector();
    if (this.#isTable) {
      const tables: TableSpec[] = [];
      this.#tables.set(profile, tables);
      this.#texts.set(profile, collector);
      return { stdout: collector, stderr, collect: (spec) => tables.push(spec) };
    }
    this.#documents.set(profile, collector);
    return { stdout: collector, stderr, collect: undefined };
  }

  /** `profile` ran to the end. */
  succeeded(profile: string, domain: string | undefined): void {
    const result = this.#documents.get(profile)?.chunks;
    this.#documents.delete(profile);
    const last = result === undefined ? -1 : result.length - 1;
    if (result !== undefined && last >= 0) result[last] = (result[last] ?? '').trimEnd();
    if (result !== undefined) this.#entries.set(profile, { profile, domain: domain ?? null, result });
  }

  /** `profile` failed: reported now on stderr (tables) or stdout (ndjson), or kept for the document. */
  async failed(profile: string, domain: string | undefined, envelope: { readonly error: TenantError }): Promise<void> {
    this.#documents.delete(profile);
    this.#tables.delete(profile);
    this.#texts.delete(profile);
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

  /** The tables of the tenants that succeeded, in profile order, and the text they printed beside tables. */
  tenantTables(profiles: readonly string[]): { tables: TenantTables[]; text: string } {
    const tables: TenantTables[] = [];
    let text = '';
    for (const profile of profiles) {
      const specs = this.#tables.get(profile);
      if (specs !== undefined && specs.length > 0) tables.push({ profile, tables: specs });
      const printed = this.#texts.get(profile)?.text() ?? '';
      for (const line of printed.split('\n')) if (line !== '') text += `${profile}: ${line}\n`;
    }
    return { tables, text };
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
   * terminal), indented into the array piece by piece, so that the document is never held twice.
   */
  static *jsonArray(entries: readonly TenantEntry[]): Generator<string> {
    if (entries.length === 0) {
      yield '[]\n';
      return;
    }
    let first = true;
    for (const entry of entries) {
      yield `${first ? '[\n' : ',\n'}  {\n    "profile": ${JSON.stringify(entry.profile)},\n    "domain": ${JSON.stringify(entry.domain)},\n`;
      first = false;
      if ('result' in entry) {
        yield '    "result": ';
        if (entry.result.every((piece) => piece === '')) yield 'null';
        for (const piece of entry.result) yield indented(piece, '    ');
      } else yield `    "error": ${indented(JSON.stringify(entry.error, null, 2), '    ')}`;
      yield '\n  }';
    }
    yield '\n]\n';
  }

  /** The value of `entries`, for yaml: each result read back from its tenant's JSON. */
  static value(entries: readonly TenantEntry[]): unknown[] {
    return entries.map((entry) =>
      'result' in entry
        ? {
            profile: entry.profile,
            domain: entry.domain,
            result: resultValue(entry.result),
          }
        : entry,
    );
  }
}
