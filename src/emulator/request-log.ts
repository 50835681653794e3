import type { IncomingMessage } from 'node:http';

export type RequestKind = 'token' | 'interface' | 'other';

export interface LoggedRequest {
  seq: number;
  /** ISO time the request arrived. */
  time: string;
  kind: RequestKind;
  method: string;
  /** Path as sent, still percent-encoded. */
  path: string;
  /** The raw query string without `?` (empty when none), still percent-encoded. */
  query: string;
  /** Request headers, lower-cased names; `authorization` is never recorded. */
  headers: Record<string, string>;
  /** For token requests: the form fields except the secret and the assertion itself. */
  token?: {
    grant_type?: string;
    client_id?: string;
    audience?: string;
    scope?: string;
    client_assertion_type?: string;
    content_type?: string;
  };
  /** Response status, once answered (0 when the connection was cut). */
  status?: number;
}

export interface RequestCounters {
  tokenRequests: number;
  interfaceRequests: number;
  otherRequests: number;
  streamsOpened: number;
  openStreams: number;
}

const MAX_ENTRIES = 1000;

/** Recent requests (not the control API's own) and counters, for tests to assert on what arrived. */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;
  counters = { tokenRequests: 0, interfaceRequests: 0, otherRequests: 0 };

  record(req: IncomingMessage, kind: RequestKind, nowMs: number): LoggedRequest {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === 'authorization' || value === undefined) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const entry: LoggedRequest = {
      seq: ++this.seq,
      time: new Date(nowMs).toISOString(),
      kind,
      method: req.method ?? 'GET',
      path: q === -1 ? raw : raw.slice(0, q),
      query: q === -1 ? '' : raw.slice(q + 1),
      headers,
    };
    if (kind === 'token') this.counters.tokenRequests++;
    else if (kind === 'interface') this.counters.interfaceRequests++;
    else this.counters.otherRequests++;
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    return entry;
  }

  list(): LoggedRequest[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
    this.counters = { tokenRequests: 0, interfaceRequests: 0, otherRequests: 0 };
  }
}
