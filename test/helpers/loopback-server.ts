import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { closeAfterEach } from './close-after-each.js';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Recorded, res: ServerResponse) => void;

/** A scriptable HTTP server on 127.0.0.1:0: each request takes the next handler (the last one repeats). */
export async function startLoopback(handlers: Handler[]) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(recorded);
      const handler = handlers[Math.min(requests.length - 1, handlers.length - 1)];
      handler?.(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Loopback = Awaited<ReturnType<typeof startLoopback>>;

/** For a file (or `describe`) whose tests each start loopback servers: `startLoopback`, each closed after its test. */
export function loopbackPerTest(): (handlers: Handler[]) => Promise<Loopback> {
  const closeAfterTest = closeAfterEach();
  return async (handlers) => closeAfterTest(await startLoopback(handlers));
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

/** A loopback TCP server that answers anything in plain HTTP: an `https://` client to it gets a TLS failure. */
export async function startPlainTcp(): Promise<{
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.on('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (bound, then closed): a connection to it is refused. */
export async function refusedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
