import { type FailedAnswer, type Outage, StreamHealth } from '../stream/stream-health.js';

/** How a stream of a run ended, when it did before the run. */
type Ending = { readonly failed: unknown } | { readonly full: true } | { readonly ended: true };

/**
 * The streams a run reads (a tenant's subscription each; one, named '', for a lone tail; none for a file): whether
 * each is open now, how it ended, and the down rule at the end (docs/decisions/2026-11-23-tail-down-exit-7.md).
 */
export class RunStreams {
  readonly names: readonly string[];
  readonly #health = new Map<string, StreamHealth>();
  readonly #endings = new Map<string, Ending>();
  readonly #down = new Set<string>();

  constructor(names: readonly string[], startedAt: number) {
    this.names = names;
    for (const name of names) this.#health.set(name, new StreamHealth(startedAt));
  }

  connected(name: string): void {
    this.#health.get(name)?.connected();
    this.#down.delete(name);
  }

  /** A connection of `name` ended or an attempt failed, at `now`; `answer`: the status and code it came with. */
  failed(name: string, reason: string, now: number, answer?: FailedAnswer): void {
    this.#health.get(name)?.failed(reason, now, answer);
    this.#down.add(name);
  }

  /** Some stream is down now. */
  get anyDown(): boolean {
    return this.#down.size > 0;
  }

  /** `name`'s subscription ended with an error. */
  endedBy(name: string, error: unknown): void {
    this.#endings.set(name, { failed: error });
  }

  /** `name` reached `--max-events`. */
  full(name: string): void {
    this.#endings.set(name, { full: true });
  }

  /** `name`'s subscription ended without an error. */
  ended(name: string): void {
    if (!this.#endings.has(name)) this.#endings.set(name, { ended: true });
  }

  /** The error `name`'s subscription ended with, if it did. */
  failure(name: string): unknown {
    const ending = this.#endings.get(name);
    return ending !== undefined && 'failed' in ending ? ending.failed : undefined;
  }

  /** The streams that have not ended: what a `--fail-fast` stop cuts short. */
  get running(): string[] {
    return this.names.filter((name) => !this.#endings.has(name));
  }

  /** Whether `name` ever opened or had to reconnect: a first failure alone has nothing to resume. */
  tried(name: string): boolean {
    return this.#health.get(name)?.tried === true;
  }

  /** The outage `name` ends the run in (the exit-7 rule): none for a stream that reached --max-events or failed. */
  outage(name: string): Outage | undefined {
    const ending = this.#endings.get(name);
    if (ending !== undefined && !('ended' in ending)) return undefined;
    return this.#health.get(name)?.outage();
  }
}
