import type { Invocation } from '../../cli/invocation.js';
import { type InvocationMaker, type TenantRef, tenantFailure, tenantsOutcome } from '../../cli/tenants.js';
import type { ErrorKind, TenantsFailed } from '../../errors.js';
import { errorEnvelope } from '../../io/error-report.js';
import { cancelledError, type TenantError } from '../../io/tenant-output.js';

/** The tenants of a run across several: each one's invocation words its failure as the CLI would for it alone. */
export interface RunTenants {
  readonly list: readonly TenantRef[];
  readonly maker: InvocationMaker;
  /** The invocation of `profile` (undefined: none was made, the run's own words it). */
  invocation(profile: string): Invocation | undefined;
}

interface Failure {
  readonly profile: string;
  readonly code: number;
  readonly kind: Exclude<ErrorKind, 'interrupted'>;
}

/**
 * The failed tenants of a run across several, each reported when it fails (`Printer.streamFailure`), the tenants a
 * `--fail-fast` stop cut short, and the exit they make together.
 */
export class TenantFailures {
  readonly #failures: Failure[] = [];
  readonly #cancelled: string[] = [];
  /** Lines written among the items, awaited before the run ends. */
  readonly #written: Promise<void>[] = [];

  constructor(
    private readonly inv: Invocation,
    private readonly tenants: RunTenants,
  ) {}

  get count(): number {
    return this.#failures.length;
  }

  /** `profile` failed with `err`: worded for it, reported now. */
  fail(profile: string, err: unknown): void {
    const { refined, code, kind } = tenantFailure(
      this.tenants.maker,
      this.tenants.invocation(profile) ?? this.inv,
      err,
    );
    this.#failures.push({ profile, code, kind });
    this.#report(profile, errorEnvelope(refined, code).error);
  }

  /** `profiles` were stopped before they finished (`--fail-fast`). */
  cancel(profiles: readonly string[], why: string): void {
    for (const profile of profiles) {
      this.#cancelled.push(profile);
      this.#report(profile, cancelledError(why));
    }
  }

  /** Until what was reported among the items is written. */
  async written(): Promise<void> {
    await Promise.all(this.#written);
  }

  /** The exit the failures make: none, the code they share when every tenant failed alike, else 9. */
  outcome(): TenantsFailed | undefined {
    const total = this.tenants.list.length;
    const succeeded = total - this.#failures.length - this.#cancelled.length;
    return tenantsOutcome(total, this.#failures, succeeded, this.#cancelled);
  }

  #report(profile: string, error: TenantError): void {
    this.#written.push(this.inv.out.streamFailure(profile, error).catch(() => {}));
  }
}
