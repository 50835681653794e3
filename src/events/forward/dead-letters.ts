import { RecordFile } from '../../io/record-file.js';
import { type ForwardedEvent, type ForwardResult, payloadOf } from './forwarder.js';

const WHAT = 'the dead-letter file';

/**
 * `--dead-letter <file>`: each event the app rejected, or that ran out of attempts, as one NDJSON line
 * `{"event":…,"offset":…,"status":…,"attempts":…,"error":…,"at":…}`. The file follows --output-file's rules (it is
 * opened the same way: a regular file only, 0600 when created, appended to in whole lines); the line is written
 * before the event counts as settled, so the cursor never moves past an event that is in neither the app nor the file.
 */
export class DeadLetters {
  readonly #file: RecordFile;

  private constructor(
    file: RecordFile,
    readonly path: string,
  ) {
    this.#file = file;
  }

  /** Opens (or creates) the file before anything is sent: a file that cannot be used is exit 2. */
  static open(path: string): DeadLetters {
    return new DeadLetters(RecordFile.open(path, WHAT, '--dead-letter'), path);
  }

  /** Appends the event's line; throws an OutputError (exit 74) when it could not be written whole. */
  append(event: ForwardedEvent, result: Exclude<ForwardResult, { outcome: 'acknowledged' }>, at: number): void {
    this.#file.append([deadLetterLine(event, result, at)]);
  }

  close(): void {
    this.#file.close();
  }
}

/** One dead letter: the event's own NDJSON line inside, as it came (already valid, compact and terminal-safe). */
export function deadLetterLine(
  event: ForwardedEvent,
  result: Pick<ForwardResult, 'status' | 'attempts'> & { error: string },
  at: number,
): Buffer {
  const payload = payloadOf(event);
  const tail = `,"offset":${JSON.stringify(event.offset ?? null)},"status":${result.status ?? null},"attempts":${result.attempts},"error":${JSON.stringify(result.error)},"at":${JSON.stringify(new Date(at).toISOString())}}\n`;
  return Buffer.concat([Buffer.from('{"event":'), payload, Buffer.from(tail)]);
}
