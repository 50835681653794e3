import type { Env } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseDuration, parseIntegerOption } from '../../util/duration.js';
import { type ForwardTarget, parseForwardTarget, type RawForwardOptions } from './target.js';

/** The forwarding options of `events tail` and `events replay`, as commander hands them over. */
export interface RawForwardingOptions extends RawForwardOptions {
  forwardTimeout?: string;
  forwardAttempts?: string;
  deadLetter?: string;
}

/** Where and how events are delivered: the target, each attempt's time limit, the attempts, the dead letters. */
export interface Forwarding {
  target: ForwardTarget;
  /** `--forward-timeout`: no answer within this is a failed attempt (retried). */
  timeoutMs: number;
  /** `--forward-attempts`: attempts per event before it counts as failed; 0: no end. */
  attempts: number;
  /** `--dead-letter`: where a rejected or failed event is set aside (the run goes on); undefined: the run stops. */
  deadLetter: string | undefined;
}

export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
export const DEFAULT_FORWARD_ATTEMPTS = 10;

/** The forwarding of one run, or undefined without --forward-to (then its other options are usage errors). */
export function parseForwarding(raw: RawForwardingOptions, env: Env): Forwarding | undefined {
  const target = parseForwardTarget(raw, env);
  if (target === undefined) {
    for (const [value, flag] of [
      [raw.forwardTimeout, '--forward-timeout'],
      [raw.forwardAttempts, '--forward-attempts'],
      [raw.deadLetter, '--dead-letter'],
    ] as const) {
      if (value !== undefined) throw new UsageError(`${flag} needs --forward-to`);
    }
    return undefined;
  }
  const timeoutMs =
    raw.forwardTimeout === undefined
      ? DEFAULT_FORWARD_TIMEOUT_MS
      : parseDuration(raw.forwardTimeout, '--forward-timeout');
  if (timeoutMs <= 0) throw new UsageError('--forward-timeout must be more than 0');
  if (raw.deadLetter === '') throw new UsageError('--dead-letter needs a path');
  return {
    target,
    timeoutMs,
    attempts:
      raw.forwardAttempts === undefined
        ? DEFAULT_FORWARD_ATTEMPTS
        : parseIntegerOption(raw.forwardAttempts, '--forward-attempts', 0),
    deadLetter: raw.deadLetter,
  };
}

/** The forwarding options again, as words of a command line that resumes the run (defaults left out). */
export function forwardingWords(forwarding: Forwarding | undefined): string[] {
  if (!forwarding) return [];
  const words = ['--forward-to', forwarding.target.url.href];
  if (forwarding.timeoutMs !== DEFAULT_FORWARD_TIMEOUT_MS) words.push('--forward-timeout', `${forwarding.timeoutMs}ms`);
  if (forwarding.attempts !== DEFAULT_FORWARD_ATTEMPTS) words.push('--forward-attempts', String(forwarding.attempts));
  if (forwarding.deadLetter !== undefined) words.push('--dead-letter', forwarding.deadLetter);
  return words;
}
