import { NetworkError } from '../errors.js';

/**
 * The deepest nesting svcadm accepts in an answer. The service's documents nest under ten levels; anything near
 * the thousands would overflow the stack of every JSON writer and table that walks it.
 */
export const MAX_JSON_DEPTH = 64;

/** An answer that is not what the interface sends: exit 7, like a network failure. */
export function malformedAnswer(detail: string, from = 'the service'): NetworkError {
  return new NetworkError(`malformed answer from ${from}: ${detail}`, { code: 'malformed_answer' });
}

/** True when the JSON text nests objects and arrays deeper than `max` (strings are skipped, escapes honoured). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

/**
 * An answer body as the interface sends it: a JSON object or array, nested at most MAX_JSON_DEPTH levels.
 * Anything else is a malformed answer, whatever status came with it.
 */
export function parseJsonAnswer(body: string, from?: string): Record<string, unknown> | unknown[] {
  if (body.trim() === '') throw malformedAnswer('an empty body', from);
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw malformedAnswer(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`, from);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw malformedAnswer(`${Buffer.byteLength(body)} bytes that are not valid JSON`, from);
  }
  if (typeof value !== 'object' || value === null) {
    throw malformedAnswer(`${kindOf(value)} where an object or a list was expected`, from);
  }
  return value as Record<string, unknown> | unknown[];
}
