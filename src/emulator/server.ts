import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ControlActions, handleControl } from './control.js';
import { EventFactory } from './event-factory.js';
import { EventLog } from './event-log.js';
import { StreamHub } from './event-stream.js';
import { answerWithFault, FaultInjector } from './faults.js';
import {
  HttpError,
  PayloadTooLarge,
  payloadTooLargeBody,
  readBody,
  sendJson,
  serviceError,
  sleep,
} from './http-util.js';
import { routeInterface } from './interface-routes.js';
import { JwtSigner } from './jwt.js';
import { SETTING_LIMIT_NAMES } from './limits.js';
import { type EmulatorOptions, resolveOptions } from './options.js';
import { CheckpointCodec } from './pagination.js';
import { Random } from './random.js';
import { RateLimiter } from './rate-limiter.js';
import { RequestLog } from './request-log.js';
import { ALL_SCOPES, READ_SCOPES } from './scopes.js';
import { type EmulatorFixtures, makeSeedData } from './seed-data.js';
import type { EmulatorSettings, EmulatorState } from './state.js';
import { answerTokenRequest } from './token-endpoint.js';
import { type EmulatorClient, TokenService } from './tokens.js';

export { EVENT_TYPES, type EventType, type StreamErrorCode } from './event-types.js';
export type { FaultKind, FaultSpec } from './faults.js';
export { LIMITS, type Limit, type LimitName } from './limits.js';
export type { EmulatorOptions } from './options.js';
export type { LoggedRequest, RequestCounters } from './request-log.js';
export type { EmulatorFixtures } from './seed-data.js';
export type { EmulatorSettings } from './state.js';
export type { EmulatorClient } from './tokens.js';

export interface RunningEmulator {
  /** Origin, e.g. `http://127.0.0.1:4010`; the interface is at `<url>/api/v2`. */
  url: string;
  port: number;
  /** Holds every scope of the spec. */
  admin: EmulatorClient;
  /** Holds only the `read:*` scopes. */
  readOnly: EmulatorClient;
  /** The admin client as `SVCADM_*` environment variables. */
  env: { SVCADM_DOMAIN: string; SVCADM_CLIENT_ID: string; SVCADM_CLIENT_SECRET: string };
  fixtures: EmulatorFixtures;
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

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const opts = resolveOptions(options);
  const signing = JwtSigner.create(randomBytes(8).toString('hex'));
  const now = options.now ?? Date.now;
  const startedAt = now();
  const seedRandom = new Random(opts.seed, 9);
  const admin: EmulatorClient = {
    clientId: `emu${seedRandom.id(29)}`,
    clientSecret: randomBytes(32).toString('base64url'),
    scopes: [...ALL_SCOPES],
  };
  const readOnly: EmulatorClient = {
    clientId: `emu${seedRandom.id(29)}`,
    clientSecret: randomBytes(32).toString('base64url'),
    scopes: [...READ_SCOPES],
  };

  const server = createServer({ keepAlive: true, requestTimeout: 0 });
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const [signer, port] = await Promise.all([signing, listen(server, opts.host, opts.port)]);
  const origin = originFor(opts.host, port);
  const tenantDomain = new URL(origin).host;

  const settings = Object.fromEntries(SETTING_LIMIT_NAMES.map((name) => [name, opts[name]])) as EmulatorSettings;
  const initialSettings = { ...settings };
  const factory = new EventFactory(
    opts.seed,
    tenantDomain,
    `tnt_${new Random(opts.seed, 10).id(12)}`,
    `est_${new Random(opts.seed, 11).id(16)}`,
  );
  const state: EmulatorState = {
    origin,
    data: makeSeedData(opts),
    settings,
    tokens: new TokenService(origin, signer, [admin, readOnly], opts.tokenTtlSeconds, now),
    limiter: new RateLimiter(opts.rateLimit, now),
    faults: new FaultInjector(),
    failRandom: new Random(opts.seed, 12),
    events: new EventLog(factory, opts.seed, opts.events, startedAt),
    streams: new StreamHub(),
    checkpoints: new CheckpointCodec(
      createHash('sha256').update(`svcadm-emulator-checkpoint:${opts.seed}`).digest(),
      now,
    ),
    requests: new RequestLog(),
    now,
  };

  let liveTimer: NodeJS.Timeout | undefined;
  const startLiveEvents = () => {
    if (liveTimer) clearInterval(liveTimer);
    liveTimer = undefined;
    if (settings.eventRate > 0) {
      liveTimer = setInterval(() => state.events.append(now()), Math.max(1, 1000 / settings.eventRate));
    }
  };
  startLiveEvents();

  const actions: ControlActions = {
    reset() {
      state.streams.destroyAll();
      state.data = makeSeedData(opts);
      state.faults.clear();
      state.requests.clear();
      Object.assign(settings, initialSettings);
      state.limiter.setRate(settings.rateLimit);
      state.failRandom = new Random(opts.seed, 12);
      startLiveEvents();
    },
    updateSettings(changes) {
      Object.assign(settings, changes);
      if (changes.rateLimit !== undefined) state.limiter.setRate(changes.rateLimit);
      if (changes.eventRate !== undefined) startLiveEvents();
    },
    describe() {
      return {
        url: origin,
        seed: opts.seed,
        settings,
        fixtures: state.data.fixtures,
        eventHead: state.events.offsetOf(state.events.head - 1),
        counters: { ...state.requests.counters, streamsOpened: state.streams.opened, openStreams: state.streams.count },
      };
    },
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    if (options.log) {
      const log = options.log;
      res.on('close', () => log(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`));
    }
    dispatch(state, actions, opts.control, req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, serviceError(500, err instanceof Error ? err.message : String(err)));
      else res.destroy();
    });
  });

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    admin,
    readOnly,
    env: { SVCADM_DOMAIN: origin, SVCADM_CLIENT_ID: admin.clientId, SVCADM_CLIENT_SECRET: admin.clientSecret },
    fixtures: state.data.fixtures,
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (liveTimer) clearInterval(liveTimer);
        state.streams.destroyAll();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function dispatch(
  state: EmulatorState,
  actions: ControlActions,
  control: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);

  if (path === '/__emulator' || path.startsWith('/__emulator/')) {
    if (control) return handleControl(state, actions, req, res, path);
    state.requests.record(req, 'other', state.now());
    return sendJson(res, 404, serviceError(404, 'Not Found'));
  }
  if (path === '/oauth/token' || path === '/oauth/token/') return tokenRequest(state, req, res, path);
  if (path === '/api/v2' || path.startsWith('/api/v2/'))
    return interfaceRequest(state, req, res, path, q === -1 ? '' : raw.slice(q + 1));

  state.requests.record(req, 'other', state.now());
  if (path === '/.well-known/jwks.json' && req.method === 'GET') {
    return sendJson(res, 200, state.tokens.jwks());
  }
  sendJson(res, 404, serviceError(404, 'Not Found'));
}

async function tokenRequest(state: EmulatorState, req: IncomingMessage, res: ServerResponse, path: string) {
  const entry = state.requests.record(req, 'token', state.now());
  res.on('close', () => {
    entry.status = res.writableFinished ? res.statusCode : 0;
  });
  if (state.settings.latencyMs > 0) await sleep(state.settings.latencyMs);
  const fault = state.faults.take(req.method ?? 'GET', path);
  if (fault) return answerWithFault(res, fault, {}, state.now());
  if (req.method !== 'POST') {
    return sendJson(res, 405, { error: 'invalid_request', error_description: 'Use POST' }, { Allow: 'POST' });
  }
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (err) {
    if (err instanceof PayloadTooLarge) return sendJson(res, 413, payloadTooLargeBody(), { Connection: 'close' });
    throw err;
  }
  const outcome = answerTokenRequest(state.tokens, req, body, entry);
  sendJson(res, outcome.status, outcome.body, { 'Cache-Control': 'no-store' });
}

async function interfaceRequest(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  rawQuery: string,
) {
  const entry = state.requests.record(req, 'interface', state.now());
  res.on('close', () => {
    entry.status = res.headersSent ? res.statusCode : 0;
  });
  if (state.settings.latencyMs > 0) await sleep(state.settings.latencyMs);
  const limit = state.limiter.take();
  const headers = limit.headers;
  if (!limit.allowed) {
    return sendJson(res, 429, serviceError(429, 'Global limit has been reached', 'too_many_requests'), headers);
  }
  const fault = state.faults.take(req.method ?? 'GET', path);
  if (fault) return answerWithFault(res, fault, headers, state.now());
  if (state.settings.failRate > 0 && state.failRandom.next() < state.settings.failRate) {
    return sendJson(
      res,
      503,
      serviceError(503, 'The service is temporarily unavailable.', 'temporarily_unavailable'),
      headers,
    );
  }
  try {
    await readBody(req);
  } catch (err) {
    if (err instanceof PayloadTooLarge) {
      return sendJson(res, 413, payloadTooLargeBody(), { ...headers, Connection: 'close' });
    }
    throw err;
  }
  try {
    const segments = path.slice('/api/v2/'.length).split('/');
    routeInterface(state, { req, res, segments, query: new URLSearchParams(rawQuery), headers });
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    sendJson(res, err.status, err.body, { ...headers, ...err.headers });
  }
}
