import type { IncomingMessage, ServerResponse } from 'node:http';
import { isEventType } from '../domain/event-types.js';
import { FATAL_STREAM_ERRORS, isStreamErrorCode, TRANSIENT_STREAM_ERRORS } from '../domain/stream-errors.js';
import { parsePublicKey } from './client-assertion.js';
import { applyDataEdit, validateDataEdit } from './data-edit.js';
import type { EventContent } from './event-factory.js';
import { validateFaultSpec } from './faults.js';
import { crossSiteOrigin, isJsonBody, type ListenAddress } from './guard.js';
import { PayloadTooLarge, readBody, sendJson } from './http-util.js';
import {
  isUnknownUserDeleteStatus,
  LIMITS,
  limitViolation,
  SETTING_LIMIT_NAMES,
  type SettingLimitName,
  UNKNOWN_USER_DELETE_STATUSES,
} from './limits.js';
import type { EmulatorSettings, EmulatorState } from './state.js';

/** What the control API can do beyond the shared state; the server provides it. */
export interface ControlActions {
  reset(): void;
  updateSettings(changes: Partial<EmulatorSettings>): void;
  describe(): Record<string, unknown>;
  /** The client ids of the admin and the read-only client. */
  clients(): { admin: string; readOnly: string };
  /** Whether `secret` is the secret of the client `clientId`. */
  secretMatches(clientId: string, secret: string): boolean;
  /** Where the emulator listens (the only `Origin` the control API accepts). */
  listen: ListenAddress;
}

const SETTING_NAMES: readonly string[] = [
  ...SETTING_LIMIT_NAMES,
  'unknownUserDeleteStatus',
  'eventsFeature',
  'deleteUserStatus',
  'permissionSources',
];

function isSettingLimit(key: string): key is SettingLimitName {
  return (SETTING_LIMIT_NAMES as readonly string[]).includes(key);
}

/** A settings change as JSON -> the typed change, or why it is refused (bounds from `limits.ts`). */
export function validateSettings(input: unknown): Partial<EmulatorSettings> | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'expected a JSON object';
  const out: Partial<EmulatorSettings> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'unknownUserDeleteStatus') {
      if (!isUnknownUserDeleteStatus(value)) return `${key} must be ${UNKNOWN_USER_DELETE_STATUSES.join(' or ')}`;
      out.unknownUserDeleteStatus = value;
      continue;
    }
    if (key === 'permissionSources') {
      if (typeof value !== 'boolean') return `${key} must be true or false`;
      out.permissionSources = value;
      continue;
    }
    if (key === 'deleteUserStatus') {
      if (value !== 200 && value !== 204) return `${key} must be 204 or 200`;
      out.deleteUserStatus = value;
      continue;
    }
    if (key === 'eventsFeature') {
      if (typeof value !== 'boolean') return `${key} must be true or false`;
      out.eventsFeature = value;
      continue;
    }
    if (!isSettingLimit(key)) return `unknown setting ${key}; known: ${SETTING_NAMES.join(', ')}`;
    const violation = limitViolation(LIMITS[key], value);
    if (violation !== undefined) return `${key} ${violation}`;
    out[key] = value as number;
  }
  return out;
}

function bad(res: ServerResponse, message: string): void {
  sendJson(res, 400, { error: 'bad_request', message });
}

class NotJson extends Error {}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req);
  if (body.length === 0) return {};
  // A web page can send text/plain without asking first; it cannot send application/json so.
  if (!isJsonBody(req)) throw new NotJson();
  return JSON.parse(body.toString('utf8')) as unknown;
}

/** `/__emulator/...`: JSON in and out. Only mounted with `control: true`. */
export async function handleControl(
  state: EmulatorState,
  actions: ControlActions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const foreign = crossSiteOrigin(req, actions.listen);
  if (foreign !== undefined) {
    req.resume();
    return sendJson(res, 403, {
      error: 'cross_site',
      message: `the control API takes no requests from web pages (Origin ${foreign})`,
    });
  }
  let body: unknown;
  try {
    body = await jsonBody(req);
  } catch (err) {
    if (err instanceof PayloadTooLarge) return sendJson(res, 413, { error: 'payload_too_large', message: 'over 1 MB' });
    if (err instanceof NotJson) {
      return sendJson(res, 415, { error: 'unsupported_media_type', message: 'send the body as application/json' });
    }
    return bad(res, 'the body is not valid JSON');
  }
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const route = `${req.method} ${path.replace(/\/+$/, '') || '/__emulator'}`;
  switch (route) {
    case 'GET /__emulator':
      return sendJson(res, 200, actions.describe());
    case 'GET /__emulator/requests':
      return sendJson(res, 200, {
        requests: state.requests.list(),
        counters: { ...state.requests.counters, streamsOpened: state.streams.opened, openStreams: state.streams.count },
      });
    case 'DELETE /__emulator/requests':
      state.requests.clear();
      return sendJson(res, 200, { cleared: true });
    case 'GET /__emulator/faults':
      return sendJson(res, 200, { faults: state.faults.list() });
    case 'POST /__emulator/faults': {
      const spec = validateFaultSpec(body);
      if (typeof spec === 'string') return bad(res, spec);
      return sendJson(res, 201, { fault: state.faults.add(spec) });
    }
    case 'DELETE /__emulator/faults':
      state.faults.clear();
      return sendJson(res, 200, { cleared: true });
    case 'GET /__emulator/settings':
      return sendJson(res, 200, { settings: state.settings });
    case 'PUT /__emulator/settings':
    case 'PATCH /__emulator/settings':
    case 'POST /__emulator/settings': {
      const changes = validateSettings(body);
      if (typeof changes === 'string') return bad(res, changes);
      actions.updateSettings(changes);
      return sendJson(res, 200, { settings: state.settings });
    }
    case 'POST /__emulator/streams/drop': {
      const mode = input.mode ?? 'end';
      if (mode !== 'end' && mode !== 'destroy') return bad(res, 'mode must be "end" or "destroy"');
      const dropped = mode === 'end' ? state.streams.endAll() : state.streams.destroyAll();
      return sendJson(res, 200, { dropped });
    }
    case 'POST /__emulator/streams/error': {
      const code = input.code;
      if (typeof code !== 'string' || !isStreamErrorCode(code)) {
        return bad(res, `code must be one of ${[...FATAL_STREAM_ERRORS, ...TRANSIENT_STREAM_ERRORS].join(', ')}`);
      }
      const message =
        typeof input.message === 'string' ? input.message : `Stream error injected by the emulator (${code})`;
      return sendJson(res, 200, { sent: state.streams.errorAll(code, message) });
    }
    case 'POST /__emulator/cursors/expire':
      state.events.expireCursors();
      state.checkpoints.expireAll();
      return sendJson(res, 200, { expired: true });
    case 'POST /__emulator/tokens/revoke':
      state.tokens.revokeAll();
      return sendJson(res, 200, { revoked: true });
    case 'POST /__emulator/events': {
      const type = input.type;
      const count = input.count ?? 1;
      if (typeof type !== 'string' || !isEventType(type)) return bad(res, 'type must be one of the 25 event types');
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 100_000) {
        return bad(res, 'count must be an integer from 1 to 100000');
      }
      if (input.test !== undefined && typeof input.test !== 'boolean') return bad(res, 'test must be true or false');
      const content: EventContent = { object: input.object, previousObject: input.previous_object, test: input.test };
      // `before` resumes just ahead of the first emitted event: `?from=<before>` replays exactly these.
      const before = state.events.offsetOf(state.events.head - 1);
      const offsets: string[] = [];
      for (let i = 0; i < count; i++) {
        offsets.push(state.events.offsetOf(state.events.append(state.now(), type, content)));
      }
      return sendJson(res, 200, { before, offsets });
    }
    case 'POST /__emulator/client-keys': {
      const clients = actions.clients();
      const named = input.client;
      const clientId =
        named === 'admin'
          ? clients.admin
          : named === 'readOnly'
            ? clients.readOnly
            : typeof named === 'string'
              ? named
              : '';
      if (clientId !== clients.admin && clientId !== clients.readOnly) {
        return bad(res, 'client must be "admin", "readOnly" or one of their client ids');
      }
      // A key lets its holder mint the client's tokens: registering one takes what a token takes, the secret.
      if (typeof input.clientSecret !== 'string' || !actions.secretMatches(clientId, input.clientSecret)) {
        return sendJson(res, 403, {
          error: 'forbidden',
          message: "clientSecret must be the client's secret to register a key on it",
        });
      }
      if (typeof input.publicKey !== 'string') return bad(res, 'publicKey must be a PEM public key');
      const key = parsePublicKey(input.publicKey);
      if (typeof key === 'string') return bad(res, `publicKey: ${key}`);
      const keys = state.tokens.registerClientKey(clientId, key);
      if (keys === undefined) return bad(res, 'client must be "admin", "readOnly" or one of their client ids');
      return sendJson(res, 201, { clientId, keys });
    }
    case 'POST /__emulator/data': {
      const edit = validateDataEdit(input);
      if (typeof edit === 'string') return bad(res, edit);
      if (!applyDataEdit(state.data, edit)) {
        return sendJson(res, 404, { error: 'not_found', message: `no ${edit.kind} item has the id ${edit.id}` });
      }
      return sendJson(res, 200, { edited: { kind: edit.kind, id: edit.id } });
    }
    case 'POST /__emulator/reset':
      actions.reset();
      return sendJson(res, 200, { reset: true });
    default:
      return sendJson(res, 404, { error: 'not_found', message: `no control route ${route}` });
  }
}
