import type { TenantCursors, TenantEvent } from '../pipeline/merged-source.js';
import { resumeSince } from '../stream/resume-point.js';
import {
  cursorFileText,
  readCursorFile,
  readTenantCursorFile,
  type SavedStart,
  type TenantStarts,
  tenantCursorText,
} from './cursor-file.js';

/**
 * Where a run starts, and its position said again: in a resume line, in the cursor file, on the status line. Every
 * source resumes alike: from the last position settled, or, where it settled none, from where it started
 * (docs/decisions/2026-11-28-resume-from-the-start.md).
 */
export interface RunPositions<P, E = unknown> {
  /** The pipeline's start. */
  readonly start: P | undefined;
  /** The words of a resume line that say where to resume (`--from …`, `--since …`, `--from-line …`). */
  resumeWords(settled: P | undefined): string[];
  /** The cursor file's text at `settled` (tails). */
  fileText?(settled: P | undefined): string;
  /** The position as the status line shows it; `last`: the event that put it there. */
  label(position: P | undefined, last: E | undefined): string | undefined;
  /** Where a position the service refused came from, in words (a lone tail's cursor: `--from`, the cursor file…). */
  origin?(position: P | undefined): string;
}

/** Where a tail's stream starts: after a cursor, from a time, or (neither) at the newest events. */
export interface StreamStart {
  readonly cursor: string | undefined;
  readonly since: string | undefined;
}

/** `events tail` against one tenant: the position is its cursor. */
export class LoneTailPositions implements RunPositions<string> {
  readonly start: string | undefined;

  private constructor(
    /** Where its stream starts. */
    readonly stream: StreamStart,
    /** Where that start came from, in words. */
    private readonly startOrigin: string,
    private readonly startedAt: number,
  ) {
    this.start = stream.cursor;
  }

  /** `--from`, else `--since`, else the cursor file (a cursor, or a time), else the newest events. */
  static open(
    opts: { from?: string | undefined; fromTimestamp?: string | undefined; cursorFile?: string | undefined },
    startedAt: number,
  ): LoneTailPositions {
    const saved: SavedStart | undefined =
      opts.from === undefined && opts.fromTimestamp === undefined && opts.cursorFile !== undefined
        ? readCursorFile(opts.cursorFile)
        : undefined;
    const cursor = opts.from ?? (saved && 'cursor' in saved ? saved.cursor : undefined);
    const since = opts.fromTimestamp ?? (saved && 'since' in saved ? saved.since : undefined);
    // The same order as the start: --from, else --since, else the cursor file.
    const origin =
      opts.from !== undefined
        ? '--from'
        : opts.fromTimestamp !== undefined
          ? '--since'
          : saved !== undefined
            ? `the cursor file ${opts.cursorFile}`
            : 'the start of the stream';
    return new LoneTailPositions({ cursor, since }, origin, startedAt);
  }

  origin(position: string | undefined): string {
    return position !== this.start ? "this tail's own stream (the last position it reached)" : this.startOrigin;
  }

  resumeWords(settled: string | undefined): string[] {
    return settled !== undefined ? ['--from', settled] : ['--since', resumeSince(this.stream.since, this.startedAt)];
  }

  fileText(settled: string | undefined): string {
    return cursorFileText(
      settled !== undefined ? { cursor: settled } : { since: resumeSince(this.stream.since, this.startedAt) },
    );
  }

  label(position: string | undefined): string | undefined {
    return position;
  }
}

/** `events tail --profiles …`: the position is a cursor per tenant, in the order of `profiles`. */
export class TenantPositions implements RunPositions<TenantCursors, TenantEvent> {
  readonly start: TenantCursors;

  private constructor(
    readonly profiles: readonly string[],
    /** Where each tenant's stream starts, in the order of `profiles`. */
    readonly streams: readonly StreamStart[],
    /** What the cursor file held: its other tenants are kept when it is written again. */
    private readonly saved: TenantStarts | undefined,
    private readonly startedAt: number,
  ) {
    this.start = streams.map((s) => s.cursor);
  }

  /**
   * `--from p=<cursor>,…` for the tenants it names, `--since` for the others; neither: the cursor file (a cursor or a
   * time per profile), else the newest events. The file is read in every case: a run rewrites it with the other
   * tenants' positions kept, never dropped.
   */
  static open(
    profiles: readonly string[],
    opts: { from?: ReadonlyMap<string, string>; fromTimestamp?: string | undefined; cursorFile?: string | undefined },
    startedAt: number,
  ): TenantPositions {
    const saved = opts.cursorFile === undefined ? undefined : readTenantCursorFile(opts.cursorFile);
    const useFile = opts.from === undefined && opts.fromTimestamp === undefined;
    const streams = profiles.map((profile): StreamStart => {
      const cursor = opts.from?.get(profile) ?? (useFile ? own(saved?.cursors, profile) : undefined);
      return { cursor, since: opts.fromTimestamp ?? (useFile ? own(saved?.since, profile) : undefined) };
    });
    return new TenantPositions(profiles, streams, saved, startedAt);
  }

  /** `--from p=<cursor>,…` for the tenants with a cursor, `--since` (the earliest start) for the others. */
  resumeWords(settled: TenantCursors | undefined): string[] {
    const cursors = settled ?? this.start;
    const from = this.profiles.flatMap((p, i) => (cursors[i] === undefined ? [] : [`${p}=${cursors[i]}`]));
    const since = this.profiles
      .flatMap((_p, i) => (cursors[i] === undefined ? [resumeSince(this.streams[i]?.since, this.startedAt)] : []))
      .sort()[0];
    return [...(from.length > 0 ? ['--from', from.join(',')] : []), ...(since === undefined ? [] : ['--since', since])];
  }

  fileText(settled: TenantCursors | undefined): string {
    const cursors: Record<string, string> = Object.assign(Object.create(null), this.saved?.cursors);
    const since: Record<string, string> = Object.assign(Object.create(null), this.saved?.since);
    const at = settled ?? this.start;
    this.profiles.forEach((profile, i) => {
      const cursor = at[i];
      delete cursors[profile];
      delete since[profile];
      if (cursor !== undefined) cursors[profile] = cursor;
      else since[profile] = resumeSince(this.streams[i]?.since, this.startedAt);
    });
    return tenantCursorText({ cursors, since });
  }

  /** The cursor of the tenant whose event came last. */
  label(_position: TenantCursors | undefined, last: TenantEvent | undefined): string | undefined {
    const offset = last?.event.offset;
    return offset === undefined ? undefined : `${last?.profile}=${offset}`;
  }
}

/** A record's own entry (never a prototype's). */
function own(record: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** `events replay`: the position is the number of the next line to read. */
export class LinePositions implements RunPositions<number> {
  constructor(readonly start: number) {}

  resumeWords(settled: number | undefined): string[] {
    return ['--from-line', String(settled ?? this.start)];
  }

  label(position: number | undefined): string | undefined {
    return position === undefined ? undefined : `line ${position}`;
  }
}
