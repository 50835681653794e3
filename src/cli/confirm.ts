import type { Io } from '../context.js';
import { UsageError } from '../errors.js';
import type { IOStreams } from '../io/io-streams.js';
import { askLine } from '../util/prompt.js';

/** What a write says when it is refused or declined. */
export interface WriteGuard {
  /** `--yes` was given. */
  yes: boolean;
  /** Off a terminal without `--yes`: the refusal (exit 2, nothing sent). */
  refusal: string;
  /** The refusal's hint, naming `--yes`. */
  yesHint: string;
}

/**
 * The one rule of a write's confirmation (`connections delete-user`, `svcadm api -X POST|PUT|PATCH|DELETE`): with
 * `--yes` it goes; off a terminal it is refused; on a terminal it asks (true: the caller asks with `confirmWrite`).
 * Checked before anything is read or sent.
 */
export function mustAsk(io: Pick<IOStreams, 'stdin'>, guard: WriteGuard): boolean {
  if (guard.yes) return false;
  if (io.stdin.isTTY !== true) throw new UsageError(guard.refusal, guard.yesHint);
  return true;
}

/** Asks `question` on the terminal; anything but y or yes is `declined` (exit 2, nothing sent). */
export async function confirmWrite(io: Io, question: string, declined: string): Promise<void> {
  const answer = (await askLine(io, question)).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new UsageError(declined);
}
