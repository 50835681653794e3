import { request } from 'node:http';
import { CONTROL_PREFIX } from './control-routes.js';

/** The largest answer read from the control API (`trigger --count 10000` answers about 250 KB of offsets). */
export const CONTROL_ANSWER_MAX = 1024 * 1024;

/** What the control API answered: the status and the JSON body (`undefined` when it was not JSON). */
export interface ControlAnswer {
  status: number;
  body: unknown;
}

/** The request did not get an answer: refused, reset, timed out, oversized, or interrupted. */
export class ControlUnreachable extends Error {
  constructor(
    message: string,
    readonly why: 'refused' | 'timeout' | 'too_large' | 'interrupted' | 'failed',
  ) {
    super(message);
  }
}

export interface ControlCallOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** The caller's clock (virtual in tests). */
  timers: { setTimeout(fn: () => void, ms: number): { cancel(): void } };
}

/**
 * One call to an emulator's control API at `origin` (plain http on a loopback address): the JSON `body` in, the
 * status and JSON out, bounded in size (`CONTROL_ANSWER_MAX`) and time. The emulator tools' only way to reach it.
 */
export function callControl(
  origin: string,
  method: 'GET' | 'POST' | 'DELETE',
  route: string,
  body: unknown,
  options: ControlCallOptions,
): Promise<ControlAnswer> {
  const url = new URL(`${CONTROL_PREFIX}${route}`, origin);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(new ControlUnreachable('interrupted', 'interrupted'));
    const req = request(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
      },
      signal: options.signal,
    });
    const timer = options.timers.setTimeout(() => {
      req.destroy(new ControlUnreachable(`no answer within ${Math.round(options.timeoutMs / 1000)} s`, 'timeout'));
    }, options.timeoutMs);
    const fail = (err: unknown) => {
      timer.cancel();
      if (err instanceof ControlUnreachable) return reject(err);
      if (options.signal.aborted) return reject(new ControlUnreachable('interrupted', 'interrupted'));
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNREFUSED') return reject(new ControlUnreachable('connection refused', 'refused'));
      reject(new ControlUnreachable(code ?? (err instanceof Error ? err.message : String(err)), 'failed'));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CONTROL_ANSWER_MAX) {
          req.destroy(new ControlUnreachable(`an answer over ${CONTROL_ANSWER_MAX / 1024} KB`, 'too_large'));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        timer.cancel();
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.end(payload);
  });
}
