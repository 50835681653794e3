import type { ServerResponse } from 'node:http';
import { sendJson, serviceError, statusText } from './http-util.js';

/**
 * - `status`: answer with `status` (429 with `Retry-After` when `retryAfter` is given, 5xx, or any other code)
 * - `malformed`: a complete 200 whose JSON body is cut short (invalid JSON)
 * - `truncated`: a 200 that announces a longer body than it sends, then the connection is cut
 * - `reset`: the connection is cut before any answer
 */
export type FaultKind = 'status' | 'malformed' | 'truncated' | 'reset';

export interface FaultSpec {
  /** Path prefix the fault applies to; `/rate-limit-policies` also matches `/api/v2/rate-limit-policies/…`. Default `/`. */
  path?: string;
  /** Only this method (e.g. `DELETE`); default any. */
  method?: string;
  /** How many matching requests fail; default 1. */
  count?: number;
  kind?: FaultKind;
  /** For `status` faults; default 503. */
  status?: number;
  /** Seconds for `Retry-After` (0 allowed); omitted when not given. */
  retryAfter?: number;
  /** Replaces the default error body (a string is sent as is). */
  body?: unknown;
  /** Lets this many matching requests through before the fault starts (and holds back the faults queued after it). */
  skip?: number;
}

export interface Fault extends Required<Pick<FaultSpec, 'path' | 'count' | 'kind' | 'status'>> {
  id: number;
  method: string | undefined;
  retryAfter: number | undefined;
  body: unknown;
  remaining: number;
  skip: number;
}

const FAULT_KINDS: readonly FaultKind[] = ['status', 'malformed', 'truncated', 'reset'];

export function validateFaultSpec(input: unknown): FaultSpec | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'expected a JSON object';
  const spec = input as Record<string, unknown>;
  if (spec.path !== undefined && (typeof spec.path !== 'string' || !spec.path.startsWith('/'))) {
    return 'path must be a string starting with /';
  }
  if (spec.method !== undefined && typeof spec.method !== 'string') return 'method must be a string';
  if (spec.count !== undefined && (!Number.isInteger(spec.count) || (spec.count as number) < 1)) {
    return 'count must be a positive integer';
  }
  if (spec.kind !== undefined && !FAULT_KINDS.includes(spec.kind as FaultKind)) {
    return `kind must be one of ${FAULT_KINDS.join(', ')}`;
  }
  if (
    spec.status !== undefined &&
    (!Number.isInteger(spec.status) || (spec.status as number) < 400 || (spec.status as number) > 599)
  ) {
    return 'status must be an integer from 400 to 599';
  }
  if (spec.retryAfter !== undefined && (typeof spec.retryAfter !== 'number' || spec.retryAfter < 0)) {
    return 'retryAfter must be a number >= 0';
  }
  if (spec.skip !== undefined && (!Number.isInteger(spec.skip) || (spec.skip as number) < 0)) {
    return 'skip must be an integer >= 0';
  }
  return spec as FaultSpec;
}

/** Queued one-shot failures, consumed by matching requests in the order they were added. */
export class FaultInjector {
  private faults: Fault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): Fault {
    const count = spec.count ?? 1;
    const fault: Fault = {
      id: this.nextId++,
      path: spec.path ?? '/',
      method: spec.method?.toUpperCase(),
      count,
      kind: spec.kind ?? 'status',
      status: spec.status ?? 503,
      retryAfter: spec.retryAfter,
      body: spec.body,
      remaining: count,
      skip: spec.skip ?? 0,
    };
    this.faults.push(fault);
    return fault;
  }

  take(method: string, path: string): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        (f.method === undefined || f.method === method) &&
        (path.startsWith(f.path) || path.startsWith(`/api/v2${f.path}`)),
    );
    if (!fault) return undefined;
    if (fault.skip > 0) {
      fault.skip--;
      return undefined;
    }
    fault.remaining--;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}

const DEFAULT_CODES: Record<number, string> = {
  429: 'too_many_requests',
  500: 'internal_server_error',
  502: 'bad_gateway',
  503: 'temporarily_unavailable',
  504: 'gateway_timeout',
};

export function defaultFaultBody(status: number): unknown {
  if (status === 429) return serviceError(429, 'Global limit has been reached', 'too_many_requests');
  return serviceError(status, `${statusText(status)} (injected by the emulator)`, DEFAULT_CODES[status]);
}

/** Answers a request with an injected fault. `headers` are the rate-limit headers the response would carry. */
export function answerWithFault(
  res: ServerResponse,
  fault: Fault,
  headers: Record<string, string>,
  nowMs: number,
): void {
  if (fault.kind === 'reset') {
    res.socket?.destroy();
    return;
  }
  if (fault.kind === 'malformed') {
    const text = '{"statusCode":200,"id":"rlp_trunc';
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(text.length),
    });
    res.end(text);
    return;
  }
  if (fault.kind === 'truncated') {
    const text = '[{"resource_server_identifier":"https://api.example.com/orders","permission_name":"read:';
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(text.length * 4),
    });
    res.write(text, () => res.destroy());
    return;
  }
  const out = { ...headers };
  if (fault.status === 429) {
    out['X-RateLimit-Remaining'] = '0';
    out['X-RateLimit-Reset'] = String(Math.ceil(nowMs / 1000) + Math.ceil(fault.retryAfter ?? 1));
  }
  if (fault.retryAfter !== undefined) out['Retry-After'] = String(Math.ceil(fault.retryAfter));
  const body = fault.body ?? defaultFaultBody(fault.status);
  if (typeof body === 'string') {
    res.writeHead(fault.status, {
      ...out,
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    res.end(body);
    return;
  }
  sendJson(res, fault.status, body, out);
}
