import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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
