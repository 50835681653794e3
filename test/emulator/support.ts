import { request } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { TestEmulator } from '../helpers/emulator.js';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** One request to the emulator with the admin token unless told otherwise; `path` is below `/api/v2`. */
export async function api(
  emu: TestEmulator,
  path: string,
  opts: { token?: string | null; method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<ApiAnswer> {
  const token = opts.token === undefined ? await emu.token() : opts.token;
  const headers: Record<string, string> = { ...opts.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${emu.apiUrl}${path}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body ?? null,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
}

/** A Server-Sent Events client over node:http that keeps the raw text and parses it with eventsource-parser. */
export class SseClient {
  status = 0;
  headers: Record<string, string | string[] | undefined> = {};
  raw = '';
  body = '';
  ended = false;
  readonly messages: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  readonly retries: number[] = [];
  private readonly waiters = new Set<() => void>();
  private destroy: () => void = () => {};

  static open(url: string, token: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const parser = createParser({
      onEvent: (message) => client.messages.push(message),
      onComment: (comment) => client.comments.push(comment),
      onRetry: (retry) => client.retries.push(retry),
    });
    return new Promise((resolve, reject) => {
      const req = request(url, { agent: false, headers: { ...headers, authorization: `Bearer ${token}` } }, (res) => {
        client.status = res.statusCode ?? 0;
        client.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          client.raw += chunk;
          if (client.status === 200) parser.feed(chunk);
          client.notify();
        });
        const finish = () => {
          client.ended = true;
          client.notify();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        if (client.status === 200) resolve(client);
        else res.on('end', () => resolve(client));
      });
      client.destroy = () => req.destroy();
      req.on('error', (err) => {
        client.ended = true;
        client.notify();
        if (client.status === 0) reject(err);
      });
      req.end();
    });
  }

  /** Events other than offset-only. */
  get events(): EventSourceMessage[] {
    return this.messages.filter((m) => m.event !== 'offset-only' && m.event !== 'error');
  }

  /** Resolves once `predicate` holds (checked on every chunk); rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out (status ${this.status}, ended ${this.ended}); got ${this.messages.length} messages, raw tail: ${this.raw.slice(-300)}`,
          ),
        );
      }, timeoutMs);
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(): void {
    this.destroy();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

export function streamUrl(emu: TestEmulator, query = ''): string {
  return `${emu.apiUrl}/events${query === '' ? '' : `?${query}`}`;
}
