import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp } from './app.js';
import {
  type BackgroundEmulator,
  type BackgroundOptions,
  type EmulatorDescription,
  launchInBackground,
  serveAsChild,
} from './background.js';
import { JwtSigner } from './jwt.js';
import { type EmulatorOptions, resolveOptions } from './options.js';

export { EVENT_TYPES, type EventType } from '../domain/event-types.js';
export type { StreamErrorCode } from '../domain/stream-errors.js';
export { type BackgroundEmulator, type BackgroundOptions, BackgroundStartError } from './background.js';
export type { FaultKind, FaultSpec } from './faults.js';
export { LIMITS, type Limit, type LimitName } from './limits.js';
export type { EmulatorOptions } from './options.js';
export type { LoggedRequest, RequestCounters } from './request-log.js';
export type { EmulatorFixtures } from './seed-data.js';
export type { EmulatorSettings } from './state.js';
export type { EmulatorClient } from './tokens.js';

export interface RunningEmulator extends EmulatorDescription {
  /** Ends open streams, destroys open sockets and stops listening. */
  close(): Promise<void>;
}

function originFor(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

function listen(server: ReturnType<typeof createServer>, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Listens (the app needs the port: tokens are bound to the origin), then serves the app until `close`. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const opts = resolveOptions(options);
  const signing = JwtSigner.shared();
  const server = createServer({ keepAlive: true, requestTimeout: 0 });
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const [signer, port] = await Promise.all([signing, listen(server, opts.host, opts.port)]);
  const origin = originFor(opts.host, port);
  const address = { host: opts.host, port };
  const app = createApp(opts, { origin, listen: address, signer, now: options.now ?? Date.now, log: options.log });
  server.on('request', app.handle);

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    admin: app.admin,
    readOnly: app.readOnly,
    env: { SVCADM_DOMAIN: origin, SVCADM_CLIENT_ID: app.admin.clientId, SVCADM_CLIENT_SECRET: app.admin.clientSecret },
    fixtures: app.fixtures,
    close() {
      closing ??= new Promise<void>((resolve) => {
        app.stop();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** `startEmulator` in a detached process of its own, which loads this module (`svcadm emulator --print-env`). */
export function startInBackground(
  options: BackgroundOptions,
  context: { env: NodeJS.ProcessEnv; signal?: AbortSignal | undefined },
): Promise<BackgroundEmulator> {
  return launchInBackground(options, context);
}

/** The program of that process. */
export function serveAsBackgroundChild(): void {
  serveAsChild((options) => startEmulator(options));
}
