import type { CallToolResult } from '@modelcontextprotocol/server';
import { exitCodeFor } from '../errors.js';
import { errorEnvelope } from '../io/printer.js';
import type { Redactor } from '../io/redaction.js';
import { neutralize } from '../text/sanitize.js';

/** The most a tool result may weigh as JSON: an agent's context is small, and the service's answers are not ours. */
export const MAX_RESULT_BYTES = 256 * 1024;
/** One string from the service, at most (a description, an error text): longer ones end in `…`. */
export const MAX_STRING_CHARS = 4096;

/** A JSON value as a tool result carries it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Every string of a value as the terminal would show it: control characters and escape sequences escaped (`\x1b`),
 * the invocation's secrets and tokens replaced, and clipped. Keys too: they came from the service as well.
 * Idempotent, so that a part cleaned to be measured is unchanged when the whole is cleaned.
 */
export function clean(value: unknown, secrets: Redactor): Json {
  if (typeof value === 'string') return cleanText(value, secrets);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null || value === undefined) return value ?? null;
  if (Array.isArray(value)) return value.map((item) => clean(item, secrets));
  if (typeof value === 'object') {
    // fromEntries defines each key as an own property: a `__proto__` from the service stays a plain key.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [cleanText(key, secrets), clean(item, secrets)]),
    );
  }
  return null;
}

function cleanText(text: string, secrets: Redactor): string {
  const safe = secrets.redact(neutralize(text));
  return safe.length > MAX_STRING_CHARS ? `${safe.slice(0, MAX_STRING_CHARS - 1)}…` : safe;
}

export function jsonBytes(value: Json): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Room left for a list's items once the rest of a result is counted. */
const ENVELOPE_ROOM = 8 * 1024;

/**
 * The longest prefix of `items` (cleaned) that keeps a result under MAX_RESULT_BYTES, and how many were left out.
 * Each item is measured once, so a page of 100 large items costs one pass.
 */
export function fitItems(items: readonly unknown[], secrets: Redactor): { kept: Json[]; omitted: number } {
  const kept: Json[] = [];
  let used = 0;
  for (const item of items) {
    const safe = clean(item, secrets);
    const size = jsonBytes(safe) + 1;
    if (used + size > MAX_RESULT_BYTES - ENVELOPE_ROOM) break;
    kept.push(safe);
    used += size;
  }
  return { kept, omitted: items.length - kept.length };
}

/** A successful call: the data for programs, a short line for the model; both cleaned. */
export function successResult(data: unknown, text: string, secrets: Redactor): CallToolResult {
  const structured = clean(data, secrets) as { [key: string]: Json };
  return { content: [{ type: 'text', text: cleanText(text, secrets) }], structuredContent: structured };
}

/**
 * A failed call as a tool result (`isError`), never a protocol error: the line the CLI prints (message — hint), then
 * the envelope of `-o json` (status, code, message, hint, the exit code the CLI would have ended with) as JSON text.
 * Not as `structuredContent`: clients (the MCP Inspector among them) check that against the tool's output schema,
 * which describes success.
 */
export function errorResult(err: unknown, secrets: Redactor): CallToolResult {
  const envelope = clean(errorEnvelope(err, exitCodeFor(err)), secrets) as {
    error: { message: string; hint?: string };
  };
  const { message, hint } = envelope.error;
  return {
    isError: true,
    content: [
      { type: 'text', text: hint ? `${message} — ${hint}` : message },
      { type: 'text', text: JSON.stringify(envelope) },
    ],
  };
}
