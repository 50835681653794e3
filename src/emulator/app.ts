import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientSecrets } from './client-secrets.js';
import { type ControlActions, handleControl } from './control.js';
import { CONTROL_OFF } from './control-routes.js';
import { EventFactory } from './event-factory.js';
import { EventLog } from './event-log.js';
import { StreamHub } from './event-stream.js';
import { answerWithFault, FaultInjector } from './faults.js';
import { isOwnHost, type ListenAddress } from './guard.js';
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
import type { JwtSigner } from './jwt.js';
import { SETTING_LIMIT_NAMES, type SettingLimitName } from './limits.js';
import type { ResolvedOptions } from './options.js';
import { CheckpointCodec } from './pagination.js';
import { Random } from './random.js';
import { RateLimiter } from './rate-limiter.js';
import { RequestLog } from './request-log.js';
import { ALL_SCOPES, READ_SCOPES } from './scopes.js';
import { type EmulatorFixtures, eventSubjects, makeSeedData } from './seed-data.js';
import type { EmulatorSettings, EmulatorState } from './state.js';
import { answerTokenRequest } from './token-endpoint.js';
import { type EmulatorClient, TokenService } from './tokens.js';

/** The emulated tenant behind one origin: its state, its clients and the handler of every request. */
export interface EmulatorApp {
  /** Holds every scope of the spec. */
  admin: EmulatorClient;
  /** Holds only the `read:*` scopes. */
  readOnly: EmulatorClient;
  fixtures: EmulatorFixtures;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Stops the live events and ends open streams; the server closes the sockets. */
  stop(): void;
}

export interface AppContext {
  /** Where the app is served, e.g. `http://127.0.0.1:4010`: tokens are bound to it. */
  origin: string;
  /** The address and port it listens on: a request's `Host` must name them (or `localhost`). */
  listen: ListenAddress;
  signer: JwtSigner;
  now: () => number;
  log?: ((line: string) => void) | undefined;
}

export function createApp(opts: ResolvedOptions, { origin, listen, signer, now, log }: AppContext): EmulatorApp {
  const startedAt = now();
  const seedRandom = new Random(opts.seed, 9);
  const secrets = clientSecrets(opts.seed, opts.clientSecret);
  const admin: EmulatorClient = {
    clientId: `emu${seedRandom.id(29)}`,
    clientSecret: secrets.admin,
    scopes: [...ALL_SCOPES],
  };
  const readOnly: EmulatorClient = {
    clientId: `emu${seedRandom.id(29)}`,
    clientSecret: secrets.readOnly,
    scopes: [...READ_SCOPES],
  };
  const tenantDomain = new URL(origin).host;

  const settings: EmulatorSettings = {
    ...(Object.fromEntries(SETTING_LIMIT_NAMES.map((name) => [name, opts[name]])) as {
      [K in SettingLimitName]: number;
    }),
    unknownUserDeleteStatus: opts.unknownUserDeleteStatus,
    eventsFeature: opts.eventsFeature,
  };
  const initialSettings = { ...settings };
  const data = makeSeedData(opts);
  const factory = new EventFactory(
    opts.seed,
    tenantDomain,
    `emulator-${new Random(opts.seed, 10).id(8)}`,
    `est_${new Random(opts.seed, 11).id(16)}`,
    eventSubjects(data),
  );
  const state: EmulatorState = {
    origin,
    features: { directoryProvisioning: opts.directoryProvisioning, rateLimitPolicies: opts.rateLimitPolicies },
    data,
    settings,
    tokens: new TokenService(
      origin,
      signer,
      [admin, readOnly],
      opts.tokenTtlSeconds,
      now,
      opts.adminPublicKeys.map((key) => ({ clientId: admin.clientId, key })),
    ),
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
      state.tokens.resetClientKeys();
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
    clients() {
      return { admin: admin.clientId, readOnly: readOnly.clientId };
    },
    secretMatches(clientId, secret) {
      const client = [admin, readOnly].find((c) => c.clientId === clientId);
      return client !== undefined && sameText(client.clientSecret, secret);
    },
    listen,
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

  return {
    admin,
    readOnly,
    fixtures: state.data.fixtures,
    handle(req, res) {
      const started = Date.now();
      if (log) res.on('close', () => log(`${req.method} ${req.url} ${res.statusCode} ${Date.now() - started}ms`));
      // DNS rebinding: a page of another site reaches this port under its own name; the Host header still says so.
      if (!isOwnHost(req.headers.host, listen)) {
        const shown = (req.headers.host ?? '(none)').slice(0, 200);
        const message = `Host ${shown} is not this emulator's address; use ${origin}`;
        sendJson(res, 421, serviceError(421, message, 'host_not_allowed'), { Connection: 'close' });
        return;
      }
      dispatch(state, actions, opts.control, req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, serviceError(500, err instanceof Error ? err.message : String(err)));
        else res.destroy();
      });
    },
    stop() {
      if (liveTimer) clearInterval(liveTimer);
      state.streams.destroyAll();
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
    // Named, so that `svcadm emulator trigger|fault|reset` can tell an emulator without it from another server.
    return sendJson(
      res,
      404,
      serviceError(404, 'The control API is off: restart the emulator without --no-control', CONTROL_OFF),
    );
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

/** Compares two secrets in constant time (by their digests, so that lengths do not leak either). */
function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}
