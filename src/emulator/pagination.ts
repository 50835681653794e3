import { createHmac, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-util.js';
import { booleanParam, integerParam } from './query.js';

export const CHECKPOINT_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** What the interface accepts for `per_page` and `take` (spec); what is served is capped by the tenant's page cap. */
export const PAGE_SIZE_MAX = 100;

/**
 * The page size served: what was asked for, but never more than the cap (no error: the service serves fewer, and
 * says so in `limit`); when nothing was asked for, half the cap, as the spec's pagination rules say.
 */
export function servedPageSize(asked: number | undefined, cap: number): number {
  return Math.min(asked ?? Math.max(1, Math.floor(cap / 2)), cap);
}

export interface OffsetPage {
  page: number;
  /** The page size served, after the cap. */
  perPage: number;
  includeTotals: boolean;
}

/** `page` (>= 0, default 0), `per_page` (1..100, served at most `cap`), `include_totals` (boolean). */
export function parseOffsetPage(query: URLSearchParams, cap: number): OffsetPage {
  const asked = integerParam(query, 'per_page', { min: 1, max: PAGE_SIZE_MAX });
  const page = integerParam(query, 'page', { min: 0 }) ?? 0;
  const includeTotals = booleanParam(query, 'include_totals') ?? false;
  return { page, perPage: servedPageSize(asked, cap), includeTotals };
}

/** The body of an offset list: a bare array, or with `include_totals` the object the service returns (`start` and `limit` as served). */
export function offsetPageBody<T>(items: readonly T[], page: OffsetPage, key: string): unknown {
  const start = page.page * page.perPage;
  const slice = items.slice(start, start + page.perPage);
  if (!page.includeTotals) return slice;
  return { start, limit: page.perPage, total: items.length, [key]: slice };
}

function invalidCheckpoint(): HttpError {
  return HttpError.service(400, 'Invalid pagination cursor', 'invalid_paging');
}

/**
 * Opaque checkpoint ids for `from`/`next`: the position, when it was issued and the cursor epoch, signed so that a
 * tampered or foreign id is refused. Bumping the epoch expires every id issued so far.
 */
export class CheckpointCodec {
  private epoch = 0;

  constructor(
    private readonly key: Buffer,
    private readonly now: () => number,
  ) {}

  expireAll(): void {
    this.epoch++;
  }

  encode(list: string, position: number): string {
    const payload = Buffer.from(JSON.stringify({ l: list, p: position, t: this.now(), e: this.epoch })).toString(
      'base64url',
    );
    return `${payload}.${this.sign(payload)}`;
  }

  /** The position a checkpoint id stands for; 400 `Invalid pagination cursor` when bad, foreign or expired. */
  decode(list: string, checkpoint: string): number {
    const [payload, signature, extra] = checkpoint.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCheckpoint();
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCheckpoint();
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCheckpoint();
    }
    if (typeof decoded !== 'object' || decoded === null) throw invalidCheckpoint();
    const { l, p, t, e } = decoded as Record<string, unknown>;
    if (l !== list || typeof p !== 'number' || typeof t !== 'number' || e !== this.epoch) throw invalidCheckpoint();
    if (this.now() - t > CHECKPOINT_VALIDITY_MS) throw invalidCheckpoint();
    return p;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
