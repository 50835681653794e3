import type http from 'node:http';
import type { Socket } from 'node:net';

/** The request option that ends a tunnel still waiting for the proxy's answer to CONNECT (`proxyAgent`). */
export const TUNNEL_STOP = 'svcadmTunnelStop';

/**
 * The agent that tunnels requests through `proxy` (CONNECT), loaded only when a proxy applies (`proxyFor` in
 * `proxy.ts`). svcadm speaks plain http only to loopback hosts, which never go through a proxy, so in practice every
 * proxied target is https.
 *
 * node:http cannot end a request whose socket the agent has not handed over yet (`destroy` waits for it), and
 * https-proxy-agent waits for the proxy's answer without a limit: a proxy that accepts and never answers would hold
 * the request, and svcadm, forever. So each tunnel is given the request's stop (TUNNEL_STOP): it ends the wait and
 * closes the connection to the proxy.
 */
export async function proxyAgent(proxy: URL): Promise<http.Agent> {
  const { HttpsProxyAgent } = await import('https-proxy-agent');
  type ConnectOptions = Parameters<InstanceType<typeof HttpsProxyAgent>['connect']>[1];
  class StoppableTunnels extends HttpsProxyAgent<string> {
    override async connect(req: http.ClientRequest, opts: ConnectOptions) {
      const stop = (opts as ConnectOptions & { [TUNNEL_STOP]?: AbortSignal })[TUNNEL_STOP];
      if (!stop) return super.connect(req, opts);
      stop.throwIfAborted();
      // The connection to the proxy is opened at once (before the agent's first await), with these options: for the
      // time of that call they carry a signal that destroys it.
      const own = new AbortController();
      const shared = this.connectOpts;
      this.connectOpts = { ...shared, signal: own.signal };
      let tunnel: Promise<Socket>;
      try {
        tunnel = super.connect(req, opts);
      } finally {
        this.connectOpts = shared;
      }
      let onStop = () => {};
      const stopped = new Promise<never>((_, reject) => {
        onStop = () => {
          own.abort(stop.reason);
          reject(stop.reason);
        };
        stop.addEventListener('abort', onStop, { once: true });
      });
      try {
        return await Promise.race([tunnel, stopped]);
      } finally {
        stop.removeEventListener('abort', onStop);
        // A tunnel that opens after all is closed: nobody will use it.
        if (stop.aborted)
          void tunnel.then(
            (socket) => socket.destroy(),
            () => {},
          );
      }
    }
  }
  return new StoppableTunnels(proxy.href, { keepAlive: true });
}
