import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { createProxy } from 'proxy';

export interface SeenConnect {
  /** The CONNECT target as svcadm asked for it (`tenant.test:443`). */
  target: string;
  proxyAuthorization: string | undefined;
}

export interface RunningProxy {
  /** `host:port` of the proxy. */
  address: string;
  connects: SeenConnect[];
  close(): Promise<void>;
}

/**
 * A real HTTP proxy (the `proxy` package, by the authors of https-proxy-agent) on 127.0.0.1:0. `names` maps made-up
 * host names to loopback, as a corporate proxy resolves names the client cannot; `credentials` makes it ask for
 * Basic authentication (407 without them).
 */
export async function startProxy(
  options: { names?: Record<string, string>; credentials?: { user: string; password: string } } = {},
): Promise<RunningProxy> {
  const connects: SeenConnect[] = [];
  const sockets = new Set<Socket>();
  const server = createServer();
  // Ahead of the proxy's own listener, which reads req.url once authentication is done.
  server.prependListener('connect', (req: IncomingMessage) => {
    connects.push({ target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    const colon = (req.url ?? '').lastIndexOf(':');
    const mapped = options.names?.[(req.url ?? '').slice(0, colon)];
    if (mapped) req.url = `${mapped}${(req.url ?? '').slice(colon)}`;
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const proxy = createProxy(server);
  const { credentials } = options;
  if (credentials) {
    const expected = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
    proxy.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface SilentProxy {
  /** `host:port` of the proxy. */
  address: string;
  /** CONNECT requests received so far. */
  connects(): number;
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1:0 that accepts every connection, reads the CONNECT request and never answers it, nor closes:
 * the tunnel hangs. `onConnect` is told of each CONNECT as it arrives (a test moves its virtual clock there).
 */
export async function startSilentProxy(onConnect: (count: number) => void = () => {}): Promise<SilentProxy> {
  const sockets = new Set<Socket>();
  let connects = 0;
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      const before = head.includes('\r\n\r\n');
      head += chunk.toString('latin1');
      if (!before && head.startsWith('CONNECT ') && head.includes('\r\n\r\n')) onConnect(++connects);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects: () => connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
