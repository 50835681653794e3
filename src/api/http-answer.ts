import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { answerCutShort, answerTooLarge } from './transport-failure.js';

/** An answer read whole (`HttpClient.request`); an answer whose body stays open is `StreamResponse` (`open`). */
export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Retries spent before this answer. */
  retries: number;
  /** Set when the answer asked for a longer wait than svcadm takes (MAX_WAIT_MS), so it was not retried. */
  waitRefused?: RefusedWait;
}

/** A wait the service asked for and svcadm would not take: how long, and when it ends (epoch ms). */
export interface RefusedWait {
  waitMs: number;
  until: number;
}

/**
 * The most of one answer (other than the event stream) svcadm reads: four times the largest payload the service
 * accepts. Whatever a server sends, memory stays bounded; a larger answer is a permanent failure, not retried.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * An answer taken for its status: Node builds the headers object when it is first read, so an app's 2xx is taken
 * without it. A class, not an object literal with a getter: each such literal gets a map of its own (its getter is a
 * new closure), which made about 4 KB per forwarded event outlive two minor collections.
 */
export class StatusOnlyAnswer implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly body = '';
  retries = 0;
  readonly #res: IncomingMessage;

  constructor(res: IncomingMessage) {
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
  }

  get headers(): IncomingHttpHeaders {
    return this.#res.headers;
  }
}

/**
 * Reads and drops a body nobody needs, then calls `done`: at its end, so that the connection is free for the next
 * request, or as soon as it is longer than `limit`, closing the connection.
 */
export function drainBody(res: IncomingMessage, limit: number, done: () => void): void {
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return;
    done();
    res.destroy();
  });
  res.on('end', done);
  res.on('close', done);
  res.on('error', () => {}); // the status is all that counts
}

/** A body read whole as UTF-8, at most `limit` bytes (a longer one, announced or not, is a `TransportFailure`). */
export function readBody(res: IncomingMessage, url: URL, limit = MAX_ANSWER_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const announced = Number(res.headers['content-length']);
    if (announced > limit) {
      res.destroy();
      reject(answerTooLarge(url, limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        res.destroy(answerTooLarge(url, limit));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('aborted', () => reject(answerCutShort()));
    res.on('error', reject);
  });
}
