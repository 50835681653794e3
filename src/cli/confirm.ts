import { interruption, UsageError } from '../errors.js';
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

/**
 * One typed line, or undefined at the end of input (Ctrl-D). Ctrl-C ends the wait at once with the interruption:
 * the question does not outlive it, so the next line typed is never taken as an answer.
 */
async function answerLine(inv: Pick<Invocation, 'ctx'>, question: string): Promise<string | undefined> {
  const { io, interrupt } = inv.ctx;
  if (interrupt.aborted) throw interruption(interrupt);
  // node:readline is loaded for a question, not at every start-up.
  const { createInterface } = process.getBuiltinModule('node:readline');
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  let onAbort = () => {};
  try {
    return await new Promise<string | undefined>((resolve, reject) => {
      // Listen before asking: an answer that arrives at once (a test's stream, a pasted line) is not lost.
      rl.once('line', resolve);
      rl.once('close', () => resolve(undefined));
      onAbort = () => reject(interruption(interrupt));
      interrupt.addEventListener('abort', onAbort, { once: true });
      io.stderr.write(question);
    });
  } finally {
    interrupt.removeEventListener('abort', onAbort);
    rl.close();
  }
}

/**
 * Asks `question` on the terminal; anything but y or yes is `declined` (exit 2, nothing sent), and so is the end of
 * input (Ctrl-D). Ctrl-C interrupts (exit 130, nothing sent).
 */
export async function confirm(
  inv: Pick<Invocation, 'ctx'> & { globals?: Pick<Invocation['globals'], 'accessible'> },
  question: string,
  declined: string,
): Promise<void> {
  const asked = inv.globals?.accessible ? inWords(question) : question;
  let answer: string | undefined;
  try {
    answer = await answerLine(inv, asked);
  } finally {
    // Ctrl-C and Ctrl-D leave the cursor on the question's line: what follows starts on a line of its own.
    if (answer === undefined) inv.ctx.io.stderr.write('\n');
  }
  const yes = answer?.trim().toLowerCase();
  if (yes !== 'y' && yes !== 'yes') throw new UsageError(declined, undefined, 'not_confirmed');
}
