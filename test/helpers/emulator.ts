import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type EmulatorOptions,
  type EmulatorSettings,
  type EventType,
  type FaultSpec,
  type LoggedRequest,
  type RequestCounters,
  type RunningEmulator,
  type StreamErrorCode,
  startEmulator,
} from '../../src/emulator/server.js';
import { closeAfterEach } from './close-after-each.js';
import { tempConfigDir } from './run-cli.js';

export type { EmulatorOptions, FaultSpec, LoggedRequest, RequestCounters, RunningEmulator };

/** A running emulator plus a typed client for its control API (`/__emulator/`). */
export interface TestEmulator extends RunningEmulator {
  /** The interface base URL, `<url>/api/v2`. */
  apiUrl: string;
  /**
   * Makes the next `count` (default 1) requests whose path starts with `path` fail.
   * `path` may omit `/api/v2` (`/rate-limit-policies` matches `/api/v2/rate-limit-policies/…`); `/oauth/token` works too.
   * Kinds: `status` (default; `status` default 503, `retryAfter` seconds adds `Retry-After`, 0 allowed),
   * `malformed` (200 with invalid JSON), `truncated` (200 cut mid-body), `reset` (connection cut).
   */
  failNext(spec: FaultSpec): Promise<void>;
  /** Shorthand: the next `count` requests to `path` get 429 with `Retry-After: retryAfter` (default 0). */
  rateLimitNext(path: string, count?: number, retryAfter?: number): Promise<void>;
  /** Removes every queued fault. */
  clearFaults(): Promise<void>;
  /** Adds `ms` before every token and interface response. */
  setLatency(ms: number): Promise<void>;
  /**
   * Changes any running setting (latency, rate limit, fail rate, page cap, stream drops, stream limit, heartbeat,
   * event rate, retry, unknownUserDeleteStatus, deleteUserStatus, permissionSources); bounds in src/emulator/limits.ts.
   */
  updateSettings(changes: Partial<EmulatorSettings>): Promise<EmulatorSettings>;
  /** Closes every open event stream now: `end` (default) ends the response, `destroy` cuts the connection. Returns how many. */
  dropStreams(mode?: 'end' | 'destroy'): Promise<number>;
  /** From now on every stream is closed by the server after `events` events (0 = never). */
  dropStreamsEvery(events: number): Promise<void>;
  /** Sends an `event: error` message with `code` to every open stream, then closes them. Returns how many. */
  streamError(code: StreamErrorCode, message?: string): Promise<number>;
  /** Every event offset issued so far answers 410, every checkpoint 400. */
  expireCursors(): Promise<void>;
  /** Every access token issued so far answers 401, so clients must fetch a new one. */
  revokeTokens(): Promise<void>;
  /**
   * Appends `count` (default 1) live events of `type` now. `before` is the offset just ahead of them
   * (`from=<before>` replays exactly these); `offsets` are theirs.
   */
  emit(type: EventType, count?: number, object?: unknown): Promise<{ before: string; offsets: string[] }>;
  /**
   * Appends live events with every option of the control API: `object` (sent as given), `previous_object` (for
   * `.updated` types; default a copy of `object`), `test` (marks them test events: `svcpurpose: test`).
   */
  emitEvent(event: {
    type: EventType;
    count?: number;
    object?: unknown;
    previous_object?: unknown;
    test?: boolean;
  }): Promise<{ before: string; offsets: string[] }>;
  /** Recent requests (control API excluded; `authorization` never recorded) and counters. */
  requests(): Promise<{ requests: LoggedRequest[]; counters: RequestCounters }>;
  /** Forgets the recorded requests and zeroes the counters. */
  clearRequests(): Promise<void>;
  /** Reseeds the data, clears faults, requests and counters, restores the start settings, closes streams. */
  reset(): Promise<void>;
  /**
   * Registers an RSA public key (PEM) on a client, which may then authenticate at the token endpoint with a
   * `client_assertion` signed by the private half. Returns how many keys the client holds. Reset forgets it.
   */
  registerClientKey(client: 'admin' | 'readOnly', publicKeyPem: string): Promise<number>;
  /** Fetches an access token for a client (admin by default) straight from the token endpoint. */
  token(client?: 'admin' | 'readOnly'): Promise<string>;
}

async function control<T>(url: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`emulator control ${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Starts an emulator on a free port with the control API on. Close it with `await emu.close()`. */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emu = await startEmulator({ ...opts, host: '127.0.0.1', port: 0, control: true });
  const { url } = emu;
  return {
    ...emu,
    close: () => emu.close(),
    apiUrl: `${url}/api/v2`,
    async failNext(spec) {
      await control(url, 'POST', '/faults', spec);
    },
    async rateLimitNext(path, count = 1, retryAfter = 0) {
      await control(url, 'POST', '/faults', { path, count, status: 429, retryAfter });
    },
    async clearFaults() {
      await control(url, 'DELETE', '/faults');
    },
    async setLatency(ms) {
      await control(url, 'PATCH', '/settings', { latencyMs: ms });
    },
    async updateSettings(changes) {
      return (await control<{ settings: EmulatorSettings }>(url, 'PATCH', '/settings', changes)).settings;
    },
    async dropStreams(mode = 'end') {
      return (await control<{ dropped: number }>(url, 'POST', '/streams/drop', { mode })).dropped;
    },
    async dropStreamsEvery(events) {
      await control(url, 'PATCH', '/settings', { dropStreamsAfter: events });
    },
    async streamError(code, message) {
      return (await control<{ sent: number }>(url, 'POST', '/streams/error', { code, message })).sent;
    },
    async expireCursors() {
      await control(url, 'POST', '/cursors/expire');
    },
    async revokeTokens() {
      await control(url, 'POST', '/tokens/revoke');
    },
    emit(type, count = 1, object) {
      return control(url, 'POST', '/events', { type, count, object });
    },
    emitEvent(event) {
      return control(url, 'POST', '/events', event);
    },
    requests() {
      return control(url, 'GET', '/requests');
    },
    async clearRequests() {
      await control(url, 'DELETE', '/requests');
    },
    async reset() {
      await control(url, 'POST', '/reset');
    },
    async registerClientKey(client, publicKeyPem) {
      const clientSecret = (client === 'admin' ? emu.admin : emu.readOnly).clientSecret;
      return (
        await control<{ keys: number }>(url, 'POST', '/client-keys', { client, publicKey: publicKeyPem, clientSecret })
      ).keys;
    },
    async token(client = 'admin') {
      const c = client === 'admin' ? emu.admin : emu.readOnly;
      const res = await fetch(`${url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: c.clientId,
          client_secret: c.clientSecret,
          audience: `${url}/api/v2/`,
        }),
      });
      if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
  };
}

/**
 * svcadm's environment for an emulator: its tenant and admin client, a config folder (a new, empty one unless
 * `configDir` is given), then `extra` (`{ NO_COLOR: '1' }`).
 */
export function emulatorEnv(
  emu: Pick<RunningEmulator, 'env'>,
  extra: Record<string, string> = {},
  configDir = tempConfigDir(),
): Record<string, string> & { SVCADM_CONFIG_DIR: string } {
  return { ...emu.env, ...extra, SVCADM_CONFIG_DIR: configDir };
}

/**
 * For a file (or `describe`) whose tests each start their own emulator: `startTestEmulator`, each closed after its
 * test.
 */
export function emulatorPerTest(): typeof startTestEmulator {
  const closeAfterTest = closeAfterEach();
  return async (opts) => closeAfterTest(await startTestEmulator(opts));
}

/** One emulator for the file, started with `options` (then `onStart`), closed after its last test, reset before each. */
function emulatorForFile(
  options: EmulatorOptions,
  onStart: (emu: TestEmulator) => void | Promise<void> = () => {},
): () => TestEmulator {
  let emu: TestEmulator | undefined;
  beforeAll(async () => {
    emu = await startTestEmulator(options);
    await onStart(emu);
  });
  afterAll(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    await emu?.reset();
  });
  return () => {
    if (!emu) throw new Error('the emulator did not start');
    return emu;
  };
}

/** What `withFileEmulator` hands each test. */
export interface EmulatorTest {
  emu: TestEmulator;
  /** A new, empty config folder: the test starts with no profiles and no cached token. */
  configDir: string;
  /** `emulatorEnv` of the emulator, that folder and the file's `env`. */
  env: Record<string, string>;
}

/**
 * One emulator for a whole test file (started with `options.emulator`), reset before each test. `onEach` then
 * receives it, a new empty config folder, and svcadm's environment for both (plus `options.env`):
 *
 *   let emu: TestEmulator;
 *   let env: Record<string, string>;
 *   withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });
 */
export function withFileEmulator(
  onEach: (each: EmulatorTest) => void,
  options: { emulator?: EmulatorOptions; env?: Record<string, string> } = {},
): void {
  const emulator = emulatorForFile(options.emulator ?? {});
  beforeEach(() => {
    const emu = emulator();
    const configDir = tempConfigDir();
    onEach({ emu, configDir, env: emulatorEnv(emu, options.env, configDir) });
  });
}

/**
 * The prologue of tests that speak to the emulator without svcadm: one emulator for the file, started with
 * `options`, an admin access token fetched once it is up (a reset does not revoke it), a reset before each test.
 *
 *   let emu: TestEmulator;
 *   let token: string;
 *   withFileEmulatorAndToken({ eventRate: 0 }, (started) => ({ emu, token } = started));
 */
export function withFileEmulatorAndToken(
  options: EmulatorOptions,
  onStart: (started: { emu: TestEmulator; token: string }) => void,
): void {
  emulatorForFile(options, async (emu) => onStart({ emu, token: await emu.token() }));
}
