import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { closeAfterEach } from './close-after-each.js';
import { tempConfigDir } from './run-cli.js';

/** A request as the hostile server saw it. */
export interface SeenRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the server answers one request. `res` is a plain node:http response; `raw` writes bytes to the socket. */
export type Behaviour = (req: SeenRequest, res: ServerResponse) => void;

export interface HostileRoutes {
  /** `POST /oauth/token` (default: a well-formed token, `issueToken()`). */
  token?: Behaviour;
  /** Everything under `/api/v2/`: one behaviour, or one per request in turn (the last repeats). */
  api?: Behaviour | Behaviour[];
}

export interface HostileServer {
  url: string;
  /** Every request received, in order (token requests included). */
  requests: SeenRequest[];
  /** Requests to the interface only. */
  apiRequests(): SeenRequest[];
  tokenRequests(): SeenRequest[];
  /** Environment for svcadm: this server as the tenant, a client id and secret, a fresh config folder. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export const CLIENT_ID = 'hostile-client';
export const CLIENT_SECRET = 'hostile-secret-Qx7fZp2Lm9';
export const ACCESS_TOKEN = 'hostile-access-token-Vb3Nw8Kd1Rt6';

/**
 * A loopback server (127.0.0.1, port 0) that misbehaves on purpose: huge or endless answers, lying pagination, bad
 * tokens, echoed credentials, control characters where text is expected. Each behaviour below is one misdeed; a
 * test picks the ones it needs for the token endpoint and the interface.
 */
export async function startHostileServer(
  routes: HostileRoutes = {},
  /** Speak TLS with this key and certificate; the URL names `name` (which only a proxy's map resolves). */
  options: { tls?: { key: string; cert: string; name: string } } = {},
): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let apiCount = 0;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://hostile');
      const seen: SeenRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      if (seen.path.startsWith('/oauth/token')) return (routes.token ?? issueToken())(seen, res);
      if (seen.path.startsWith('/api/v2/') && routes.api !== undefined) {
        const api = routes.api;
        const behaviour = Array.isArray(api) ? api[Math.min(apiCount, api.length - 1)] : api;
        apiCount++;
        return behaviour?.(seen, res);
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not found"}');
    });
  };
  const { tls } = options;
  const server = tls ? createTlsServer({ key: tls.key, cert: tls.cert }, listener) : createServer(listener);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = tls ? `https://${tls.name}:${port}` : `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    apiRequests: () => requests.filter((r) => r.path.startsWith('/api/v2/')),
    tokenRequests: () => requests.filter((r) => r.path.startsWith('/oauth/token')),
    env: (extra = {}) => ({
      SVCADM_DOMAIN: url,
      SVCADM_CLIENT_ID: CLIENT_ID,
      SVCADM_CLIENT_SECRET: CLIENT_SECRET,
      SVCADM_CONFIG_DIR: tempConfigDir(),
      ...extra,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a file (or `describe`) whose tests each start their own hostile server: `startHostileServer` again, but each
 * server is closed after its test.
 *
 *   const hostile = hostileServerPerTest();
 *   it('…', async () => { const server = await hostile({ api: answerJson(200, {}) }); … });
 */
export function hostileServerPerTest(): typeof startHostileServer {
  const closeAfterTest = closeAfterEach();
  return async (routes, options) => closeAfterTest(await startHostileServer(routes, options));
}

/** A well-formed client-credentials answer; `fields` replace or add to it (`{ expires_in: 1e20 }`). */
export function issueToken(fields: Record<string, unknown> = {}): Behaviour {
  return (_req, res) => {
    const body = { access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 86400, ...fields };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

/** A JSON answer (a string body is sent as it is). */
export function answerJson(status: number, body: unknown, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** Bytes written straight to the socket: a status line or header node:http would refuse to send. */
export function raw(response: string | Buffer): Behaviour {
  return (_req, res) => {
    res.socket?.end(response);
  };
}

/**
 * A 200 body of `bytes` bytes of JSON-looking filler (endless with Infinity), written as fast as the client reads;
 * `contentLength` announces the size up front.
 */
export function hugeBody(bytes: number, opts: { contentLength?: boolean } = {}): Behaviour {
  return (_req, res) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.contentLength && Number.isFinite(bytes)) headers['content-length'] = String(bytes);
    res.writeHead(200, headers);
    pump(res, Buffer.from(`{"id":"${'x'.repeat(64 * 1024 - 8)}`), bytes);
  };
}

/** JSON nested `levels` deep: `[[[…]]]`. */
export function deepJson(levels: number): Behaviour {
  return answerJson(200, `${'['.repeat(levels)}${']'.repeat(levels)}`);
}

/** An event stream: the given text (SSE lines), then the stream ends unless `keepOpen`. */
export function sse(text: string | readonly string[], opts: { keepOpen?: boolean } = {}): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of typeof text === 'string' ? [text] : text) res.write(chunk);
    if (!opts.keepOpen) res.end();
  };
}

/** One SSE message. */
export function sseMessage(id: string | undefined, event: string, data: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;
}

/**
 * An event stream whose `prefix` (SSE text) is followed by a line of `bytes` bytes that never ends, `data: xxxx…`
 * (by default until the client leaves).
 */
export function endlessSseLine(prefix = '', bytes = Number.POSITIVE_INFINITY): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${prefix}data: {"offset":"`);
    pump(res, Buffer.alloc(64 * 1024, 'x'), bytes);
  };
}

/** An event stream whose `prefix` is followed by one event of `bytes` bytes, sent as many 64 KB `data:` lines. */
export function hugeSseEvent(bytes: number, prefix = ''): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${prefix}event: user.created\n`);
    pump(res, Buffer.from(`data: ${'y'.repeat(64 * 1024 - 7)}\n`), bytes, () => res.end('\n'));
  };
}

/** Writes `block` repeatedly until `bytes` are sent or the client goes away, respecting backpressure. */
function pump(res: ServerResponse, block: Buffer, bytes: number, done: () => void = () => res.end()): void {
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const more = () => {
    while (!closed && sent < bytes) {
      const part = bytes - sent >= block.length ? block : block.subarray(0, bytes - sent);
      sent += part.length;
      if (!res.write(part)) {
        res.once('drain', more);
        return;
      }
    }
    if (!closed) done();
  };
  more();
}

/** An event message's data as the service sends it: the offset and an envelope with this id. */
export const eventData = (offset: string, id: string) => `{"offset":"${offset}","event":{"id":"${id}"}}`;

/** The event ids of NDJSON lines, in order. */
export const eventIds = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { event: { id: string } }).event.id);
