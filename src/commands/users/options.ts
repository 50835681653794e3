import { PERMISSIONS_PAGE_MAX } from '../../api/pagers.js';
import { OFFSET_CONCURRENCY_DEFAULT } from '../../api/paginate.js';
import { UsageError } from '../../errors.js';
import { parseIntegerOption } from '../../util/duration.js';

export const PER_PAGE_MIN = 1;
export const PER_PAGE_MAX = PERMISSIONS_PAGE_MAX;
export const CONCURRENCY_MAX = 16;

export interface UserPermissionsRaw {
  page?: string;
  perPage?: string;
  includeTotals?: boolean;
  all?: boolean;
  concurrency?: string;
}

export interface UserPermissionsOptions {
  userId: string;
  page: number | undefined;
  perPage: number | undefined;
  includeTotals: boolean;
  all: boolean;
  concurrency: number;
}

export function parseUserPermissionsOptions(userId: string, raw: UserPermissionsRaw): UserPermissionsOptions {
  if (userId.trim() === '') throw new UsageError('the user id must not be empty');
  const all = raw.all === true;
  if (all && raw.page !== undefined) {
    throw new UsageError('--all cannot be combined with --page', '--all starts at page 0 and fetches every page');
  }
  const page = raw.page === undefined ? undefined : parseIntegerOption(raw.page, '--page', 0);
  const perPage =
    raw.perPage === undefined ? undefined : parseIntegerOption(raw.perPage, '--per-page', PER_PAGE_MIN, PER_PAGE_MAX);
  const concurrency =
    raw.concurrency === undefined
      ? OFFSET_CONCURRENCY_DEFAULT
      : parseIntegerOption(raw.concurrency, '--concurrency', 1, CONCURRENCY_MAX);
  return { userId, page, perPage, includeTotals: raw.includeTotals === true, all, concurrency };
}
