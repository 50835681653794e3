import { Writable } from 'node:stream';
import type { OutStream } from '../context.js';
import { neutralize } from '../text/sanitize.js';

export const REDACTED = '[redacted]';

/** Values this short are not scrubbed: they would blank ordinary words, and no real secret or token is that short. */
const MIN_SECRET_LENGTH = 6;

/**
 * The secrets of one invocation (client secret, access tokens) and the ways a server could echo them back: as they
 * are, form- or percent-encoded, escaped in a JSON string, or as svcadm shows text from a service. Everything
 * svcadm writes to stderr goes through `redact` (see `redactingStream`), so no message, hint, trace or error
 * envelope can show one, whatever the service put in its answer.
 */
export class Redactor {
  readonly #forms = new Set<string>();
  /** The forms longest first (one form may hold another: a secret and the same secret escaped). */
  #longestFirst: string[] = [];

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) return;
    const json = JSON.stringify(secret).slice(1, -1);
    for (const form of [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      json,
      JSON.stringify(json).slice(1, -1),
      neutralize(secret),
    ]) {
      this.#forms.add(form);
    }
    this.#longestFirst = [...this.#forms].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.#longestFirst) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
    return out;
  }
}

/**
 * `target` seen through the redactor: each write is scrubbed before it reaches it. svcadm writes whole lines, so a
 * secret is never cut between two writes. Terminal properties are those of the target.
 */
export function redactingStream(target: OutStream, redactor: Redactor): OutStream {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      target.write(redactor.redact(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
      done();
    },
  }) as OutStream;
  for (const property of ['isTTY', 'columns', 'rows'] as const) {
    Object.defineProperty(stream, property, { get: () => target[property], enumerable: true });
  }
  return stream;
}
