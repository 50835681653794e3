import { UsageError } from '../../errors.js';
import { parseIntegerOption } from '../../util/duration.js';

/** `--take`, `--from` and `--all` of a checkpoint list, as commander hands them over. */
export interface CheckpointListRaw {
  from?: string;
  take?: string;
  all?: boolean;
}

export interface CheckpointListOptions {
  from: string | undefined;
  take: number | undefined;
  all: boolean;
}

/** The paging options every checkpoint list shares: `--take` 1..`takeMax`, `--from` not empty, not with `--all`. */
export function parseCheckpointListOptions(raw: CheckpointListRaw, takeMax: number): CheckpointListOptions {
  const all = raw.all === true;
  if (all && raw.from !== undefined) {
    throw new UsageError(
      '--all cannot be combined with --from',
      '--all starts at the beginning and follows every page',
    );
  }
  if (raw.from !== undefined && raw.from.trim() === '') throw new UsageError('--from must not be empty');
  const take = raw.take === undefined ? undefined : parseIntegerOption(raw.take, '--take', 1, takeMax);
  return { from: raw.from, take, all };
}

/** `--take N` for a next-page command, when one was given. */
export function takeWords(take: number | undefined): string[] {
  return take === undefined ? [] : ['--take', String(take)];
}
