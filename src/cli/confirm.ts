import { UsageError } from '../errors.js';
import { askLine } from '../util/prompt.js';
import type { Invocation } from './host.js';

/**
 * The one confirmation rule of a write (`connections delete-user`, `svcadm api -X POST|PUT|PATCH|DELETE`): with --yes
 * it goes ahead (false); off a terminal it refuses, exit 2 with nothing read or sent; else the caller asks
 * (`confirm`). The signatures match main's module of the same name (agent mode), so the merge keeps main's body.
 */
export function mustAsk(inv: Pick<Invocation, 'io'>, yes: boolean, refusal: string, hint: string): boolean {
  if (yes) return false;
  if (inv.io.stdin.isTTY !== true) throw new UsageError(`${refusal}: not a terminal`, hint);
  return true;
}

/** Asks `question` on the terminal; anything but y or yes is `declined` (exit 2, nothing sent). */
export async function confirm(inv: Pick<Invocation, 'ctx'>, question: string, declined: string): Promise<void> {
  const answer = (await askLine(inv.ctx.io, question)).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new UsageError(declined);
}
