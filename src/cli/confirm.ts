import { UsageError } from '../errors.js';
import { askLine } from '../util/prompt.js';
import type { Invocation } from './host.js';

/** Why no question can be asked in this run, for the refusal. */
function whyNotAsked(inv: Pick<Invocation, 'globals'>): string {
  const { agent } = inv.globals;
  return agent.on ? `agent mode (${agent.variable ?? 'on'})` : 'not a terminal';
}

/**
 * Before a destructive action: with --yes it goes ahead (false); where no question may be asked (stdin is not a
 * terminal, or an agent runs svcadm) it refuses, exit 2 with nothing sent; else the caller asks (`confirm`).
 */
export function mustAsk(inv: Pick<Invocation, 'globals'>, yes: boolean, refusal: string, hint: string): boolean {
  if (yes) return false;
  if (!inv.globals.prompts) throw new UsageError(`${refusal}: ${whyNotAsked(inv)}`, hint, 'confirmation_required');
  return true;
}

/** Accessible mode: `[y/N]` read out is noise; the question says its answers in words. */
function inWords(question: string): string {
  return question.replace(/\s*\[y\/N\]\s*$/, ' Type yes to confirm, or press Enter to cancel: ');
}

/** Asks `question` on the terminal; anything but y or yes is `declined` (exit 2, nothing sent). */
export async function confirm(
  inv: Pick<Invocation, 'ctx'> & { globals?: Pick<Invocation['globals'], 'accessible'> },
  question: string,
  declined: string,
): Promise<void> {
  const asked = inv.globals?.accessible ? inWords(question) : question;
  const answer = (await askLine(inv.ctx.io, asked)).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new UsageError(declined, undefined, 'not_confirmed');
}
