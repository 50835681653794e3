import { timestampOf } from '../../api/timestamp.js';
import type { Invocation } from '../../cli/invocation.js';
import { CliError, Interrupted, interruption, OutputError } from '../../errors.js';
import { groupedCount } from '../../render/progress-text.js';
import type { DeliverySink } from '../forward/delivery.js';
import { forwardingWords } from '../forward/options.js';
import { summaryText, summaryValue } from '../forward/summary.js';
import { type Outage, outageError, outageText } from '../stream/stream-health.js';
import type { EventsSource, RunOptions } from './source.js';
import type { RunStops } from './stops.js';
import type { RunStreams } from './streams.js';
import type { TenantFailures } from './tenant-failures.js';

/** `svcadm: interrupted after 12 events (…)`: how a run stopped, for people, when it does not forward. */
function stopLine(how: string, count: number, extras: readonly string[]): string {
  const more = extras.map((extra) => ` (${extra})`).join('');
  return `svcadm: ${how} after ${count} ${count === 1 ? 'event' : 'events'}${more}`;
}

/** `3 malformed lines skipped`, or nothing. */
function skippedText(malformed: number): string | undefined {
  return malformed > 0 ? `${malformed} malformed ${malformed === 1 ? 'line' : 'lines'} skipped` : undefined;
}

/** What the end of a run is told from: its parts as they stand once its pipeline has stopped. */
export interface RunParts<P> {
  readonly inv: Invocation;
  readonly source: Pick<EventsSource<never, P, unknown>, 'command' | 'keep' | 'paste' | 'reading'> & {
    readonly positions: Pick<EventsSource<never, P, unknown>['positions'], 'resumeWords' | 'origin'>;
  };
  readonly opts: RunOptions;
  readonly pipeline: {
    readonly count: number;
    readonly full: boolean;
    readonly fullStreams: ReadonlySet<string>;
    readonly position: P | undefined;
    readonly settledPosition: P | undefined;
  };
  readonly stops: RunStops;
  readonly streams: RunStreams;
  readonly failures: TenantFailures | undefined;
  readonly delivery: DeliverySink | undefined;
  /** Malformed lines of a recorded file, skipped. */
  readonly malformed: number;
}

/**
 * How a run ends, whatever its source: the stop line or the summary, the resume line, the outage, and the exit code
 * (a signal's, a sink's, the stream's, the tenants'; docs/decisions/2026-11-28-events-one-run.md).
 */
export class RunEnding<P> {
  constructor(private readonly parts: RunParts<P>) {}

  /** Why the run stopped, for the last status line. */
  reason(failure: unknown): string | undefined {
    const stops = this.parts.stops;
    if (stops.quit) return 'q pressed';
    if (stops.interrupted) return stops.signalWords;
    if (failure !== undefined || this.#loneFailure() !== undefined || stops.failFast.signal.aborted) return 'failed';
    if (this.parts.pipeline.full) return 'reached --max-events';
    const outage = this.#loneOutage();
    if (outage) return `down since ${timestampOf(outage.since)}`;
    return stops.duration.signal.aborted ? 'reached --duration' : undefined;
  }

  /** How the run ended, in the words of its summary and its stop line. */
  #how(stoppedBy: CliError | undefined): string {
    const stops = this.parts.stops;
    if (stops.interrupted) return stops.signalWords;
    if (stoppedBy) return 'stopped';
    if (stops.quit) return 'q pressed';
    if (this.parts.source.reading) return 'finished';
    return this.reason(undefined) ?? 'the stream ended';
  }

  /** A lone tail's failure: its one stream's (across tenants each tenant's is its own). */
  #loneFailure(): unknown {
    return this.parts.failures ? undefined : this.parts.streams.failure('');
  }

  /** The outage a lone tail ends in (the exit-7 rule), unless it reached --max-events. */
  #loneOutage(): Outage | undefined {
    if (this.parts.failures || this.parts.streams.names.length !== 1 || this.parts.pipeline.full) return undefined;
    return this.parts.streams.outage('');
  }

  /** Says how the run ended, then ends it with its exit: 0, a signal's, a sink's, the stream's, or the tenants'. */
  async end(failure: unknown, stoppedBy: CliError | undefined): Promise<void> {
    if (failure !== undefined && stoppedBy === undefined && !(failure instanceof Interrupted)) {
      // stdout broke, or what no source expects: said as it is, with where to resume when stdout broke.
      if (failure instanceof OutputError) failure.addHint(`resume with: ${this.#resumeLine()}`);
      throw failure;
    }
    const signalled = this.parts.stops.interrupted || failure instanceof Interrupted;
    const quit = this.parts.stops.quit && stoppedBy === undefined;
    this.#tell(signalled || stoppedBy !== undefined || quit, quit, stoppedBy);
    if (signalled) throw interruption(this.parts.inv.ctx.interrupt, true);
    if (stoppedBy) throw stoppedBy;
    if (this.parts.failures) return this.#endAcrossTenants(this.parts.failures, quit);
    const lone = this.#loneFailure();
    if (lone !== undefined) throw this.#worded(lone);
    const outage = this.#loneOutage();
    if (quit || outage === undefined) return;
    // Ended by --duration (or the stream's own end) while down: not a success.
    throw outageError(outage).addHint(`resume with: ${this.#resumeLine()}`);
  }

  /**
   * The stop on stderr: with forwarding, the summary (counts per outcome and type; one JSON line for data); else, when
   * stopped, how and after how many events (not for `q`, whose status line says it); then the line to resume with.
   */
  #tell(stopped: boolean, quit: boolean, stoppedBy: CliError | undefined): void {
    const { count } = this.parts.pipeline;
    const how = this.#how(stoppedBy);
    const skipped = skippedText(this.parts.malformed);
    const outage = this.#loneOutage();
    const delivery = this.parts.delivery;
    if (delivery) {
      const end = {
        events: count,
        how: skipped === undefined ? how : `${how} (${skipped})`,
        retrying: delivery.retrying,
        deadLetter: this.parts.opts.forward?.deadLetter,
        resume: stopped || outage !== undefined ? this.#resumeLine() : undefined,
      };
      this.parts.inv.out.aside(summaryValue(delivery.counts, end), summaryText(delivery.counts, end), stopped);
      return;
    }
    const stderr = this.parts.inv.io.stderr;
    if (stopped) {
      const down = outage === undefined || stoppedBy ? undefined : outageText(outage);
      const extras = [down, skipped].filter((extra) => extra !== undefined);
      if (!quit) stderr.write(`${stopLine(how, count, extras)}\n`);
      stderr.write(`resume with: ${this.#resumeLine()}\n`);
    } else if (skipped !== undefined) {
      this.parts.inv.io.notice(`svcadm: replayed ${groupedCount(count)} events (${skipped})`);
    }
  }

  /**
   * Across tenants: a tenant that ends while down fails (the exit-7 rule, for it alone); under --fail-fast the
   * tenants cut short are reported as cancelled; the exit is the failures' (cli.md "Many tenants").
   */
  async #endAcrossTenants(failures: TenantFailures, quit: boolean): Promise<void> {
    const failFast = this.parts.stops.failFast.signal;
    if (failFast.aborted) {
      failures.cancel(this.parts.streams.running, `stopped by --fail-fast: ${failFast.reason} failed`);
    } else if (!quit) {
      for (const name of this.parts.streams.names) {
        const outage = this.parts.pipeline.fullStreams.has(name) ? undefined : this.parts.streams.outage(name);
        if (outage) failures.fail(name, outageError(outage));
      }
    }
    await failures.written();
    const outcome = failures.outcome();
    if (outcome) throw outcome.addHint(`resume with: ${this.#resumeLine()}`);
  }

  /** A lone tail's failure with what to do: start again from a time (a refused cursor), or resume. */
  #worded(err: unknown): unknown {
    if (!(err instanceof CliError)) return err;
    if (err.reason === 'cursor_expired' || err.reason === 'invalid_cursor') {
      const cursorFrom =
        this.parts.source.positions.origin?.(this.parts.pipeline.position) ?? 'the start of the stream';
      err.restart = { words: this.#restartWords(), cursorFrom };
    } else if ((err.kind === 'network' || err.kind === 'rate_limited') && this.parts.streams.tried('')) {
      // Given up (--max-reconnects): resume after the last batch written.
      err.addHint(`resume with: ${this.#resumeLine()}`);
    }
    return err;
  }

  /** The pasteable command that resumes the run where it settled. */
  #resumeLine(): string {
    const { source } = this.parts;
    const at = source.positions.resumeWords(this.parts.pipeline.settledPosition);
    const { types, forward, outputFile, cursorFile } = this.parts.opts;
    return source.paste([
      ...source.command,
      ...at,
      ...(types.length > 0 ? ['--type', types.join(',')] : []),
      ...(source.keep ?? []),
      ...forwardingWords(forward),
      ...(outputFile === undefined ? [] : ['--output-file', outputFile]),
      ...(cursorFile === undefined ? [] : ['--cursor-file', cursorFile]),
    ]);
  }

  /** The words a tail started again from a time keeps: where it keeps its cursor, what it shows and where it sends. */
  #restartWords(): string[] {
    const { types, forward, outputFile, cursorFile } = this.parts.opts;
    return [
      ...(cursorFile === undefined ? [] : ['--cursor-file', cursorFile]),
      ...(types.length > 0 ? ['--type', types.join(',')] : []),
      ...forwardingWords(forward),
      ...(outputFile === undefined ? [] : ['--output-file', outputFile]),
    ];
  }
}
