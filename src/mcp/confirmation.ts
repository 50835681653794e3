import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';

/** How long a question stays open: a user reads it and answers, or asks again. */
const QUESTION_TTL_MS = 10 * 60 * 1000;
/** Questions open at once, at most: a client that asks and never answers cannot grow the table. */
const MAX_OPEN_QUESTIONS = 32;

/**
 * What the user said to this call's question; `unsupported`: the client cannot ask; `waived`: it cannot, and the
 * server was started with `--allow-writes=unconfirmed`.
 */
export type Confirmation = 'accepted' | 'declined' | 'not_asked' | 'unsupported' | 'waived';

interface OpenQuestion {
  /** The tool and exactly what it will act on: `delete_connection_user` + connection id + e-mail. */
  subject: string;
  expires: number;
}

/**
 * The questions this server asked and has not yet had answered. A confirmation counts only when it comes back with
 * the `requestState` svcadm minted for that question, in the same call, about the same subject, once: an answer
 * sent with the first call (nothing asked yet), one minted for alice and sent for o'neil, or one replayed, is
 * ignored and the question is asked again. The state is a random name for an entry kept here, not a signed
 * payload: nothing a client sends can create an entry.
 */
export class Questions {
  private readonly open = new Map<string, OpenQuestion>();

  constructor(private readonly clock: Clock) {}

  /** A new question about `subject`: the requestState to send with it. */
  ask(subject: string): string {
    this.forgetExpired();
    while (this.open.size >= MAX_OPEN_QUESTIONS) {
      const oldest = this.open.keys().next().value;
      if (oldest === undefined) break;
      this.open.delete(oldest);
    }
    const state = randomBytes(18).toString('base64url');
    this.open.set(state, { subject, expires: this.clock.now() + QUESTION_TTL_MS });
    return state;
  }

  /**
   * Whether `state` names an open question about `subject`; the question is closed either way, so that an answer
   * counts once.
   */
  answers(state: string | undefined, subject: string): boolean {
    if (state === undefined) return false;
    const question = this.open.get(state);
    if (question === undefined) return false;
    this.open.delete(state);
    return question.subject === subject && question.expires > this.clock.now();
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [state, question] of this.open) if (question.expires <= now) this.open.delete(state);
  }
}

/** The form answer to `confirm` as the elicitation returned it: only `accept` with `confirm: true` is a yes. */
export function saidYes(answer: unknown): boolean {
  return isRecord(answer) && answer.action === 'accept' && isRecord(answer.content) && answer.content.confirm === true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
