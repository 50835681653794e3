import { type EventType, isEventType } from '../domain/event-types.js';
import { DEFAULT_TAKE } from '../domain/pages.js';
import { HttpError, sendEmpty, sendJson } from './http-util.js';
import { featureNotEnabled, serveConnections, serveRateLimitPolicies, serveUsersByEmail } from './id-lists.js';
import { offsetPageBody, PAGE_SIZE_MAX, parseOffsetPage, servedPageSize } from './pagination.js';
import { integerParam, queryError, rejectUnknownParams, single } from './query.js';
import { type InterfaceRequest, scopesOf } from './request.js';
import { ENDPOINT_SCOPES } from './scopes.js';
import type { EmulatorState } from './state.js';
import { requireScope } from './tokens.js';

type Handler = (state: EmulatorState, call: InterfaceRequest, params: string[]) => void;

interface Route {
  method: string;
  /** Segments; `*` captures one (decoded) path parameter. */
  pattern: string[];
  handler: Handler;
}

const ROUTES: Route[] = [
  { method: 'GET', pattern: ['rate-limit-policies'], handler: serveRateLimitPolicies },
  { method: 'GET', pattern: ['connections'], handler: serveConnections },
  { method: 'GET', pattern: ['users-by-email'], handler: serveUsersByEmail },
  { method: 'GET', pattern: ['rate-limit-policies', '*'], handler: getRateLimitPolicy },
  { method: 'GET', pattern: ['connections-directory-provisionings'], handler: listProvisionings },
  { method: 'GET', pattern: ['events'], handler: subscribeToEvents },
  { method: 'GET', pattern: ['users', '*', 'permissions'], handler: listUserPermissions },
  { method: 'DELETE', pattern: ['connections', '*', 'users'], handler: deleteConnectionUser },
];

function pathError(message: string): HttpError {
  return HttpError.service(400, `Path validation error: '${message}' on property id`, 'invalid_uri');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw HttpError.service(400, 'Path validation error: malformed percent-encoding', 'invalid_uri');
  }
}

function match(segments: string[], pattern: string[]): string[] | undefined {
  if (segments.length !== pattern.length) return undefined;
  const params: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    const actual = segments[i] as string;
    if (expected === '*') params.push(decodeSegment(actual));
    else if (expected !== actual) return undefined;
  }
  return params;
}

/** Finds the route (404 / 405 when none) and authenticates the caller; handlers then check scope and input. */
export function routeInterface(state: EmulatorState, call: InterfaceRequest): void {
  const candidates = ROUTES.map((route) => ({ route, params: match(call.segments, route.pattern) })).filter(
    (c) => c.params !== undefined,
  );
  if (candidates.length === 0) throw HttpError.service(404, 'Not found');
  const chosen = candidates.find((c) => c.route.method === call.req.method);
  if (!chosen) {
    throw new HttpError(
      405,
      { statusCode: 405, error: 'Method Not Allowed', message: 'Method Not Allowed' },
      {
        Allow: candidates.map((c) => c.route.method).join(', '),
      },
    );
  }
  chosen.route.handler(state, call, chosen.params as string[]);
}

function getRateLimitPolicy(state: EmulatorState, call: InterfaceRequest, [id = '']: string[]): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.getRateLimitPolicy);
  if (!state.features.rateLimitPolicies) throw featureNotEnabled('rate limit policies');
  if (id.length === 0) throw pathError('String is too short (0 chars), minimum 1');
  if (id.length > 26) throw pathError(`String is too long (${id.length} chars), maximum 26`);
  rejectUnknownParams(call.query, []);
  const policy = state.data.policies.get(id);
  if (!policy) throw HttpError.service(404, 'The rate limit policy does not exist.', 'inexistent_rate_limit_policy');
  sendJson(call.res, 200, policy, call.headers);
}

function listProvisionings(state: EmulatorState, call: InterfaceRequest): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.listProvisionings);
  if (!state.features.directoryProvisioning) throw featureNotEnabled('directory provisioning');
  rejectUnknownParams(call.query, ['from', 'take']);
  // An omitted take is 50, as the OpenAPI says and the Node SDK sends (api-notes, revised in round 3).
  const asked = integerParam(call.query, 'take', { min: 1, max: PAGE_SIZE_MAX }) ?? DEFAULT_TAKE;
  const take = servedPageSize(asked, state.settings.pageCap);
  const from = single(call.query, 'from');
  const start = from === undefined || from === '' ? 0 : state.checkpoints.decode('provisionings', from);
  const all = state.data.provisionings;
  const page = all.slice(start, start + take);
  const body: { directory_provisionings: unknown[]; next?: string } = { directory_provisionings: page };
  if (start + take < all.length) body.next = state.checkpoints.encode('provisionings', start + take);
  sendJson(call.res, 200, body, call.headers);
}

function listUserPermissions(state: EmulatorState, call: InterfaceRequest, [id = '']: string[]): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.userPermissions);
  if (id.length === 0) throw pathError('String is too short (0 chars), minimum 1');
  rejectUnknownParams(call.query, ['page', 'per_page', 'include_totals']);
  const page = parseOffsetPage(call.query, state.settings.pageCap);
  const permissions = state.data.permissions.get(id);
  if (!permissions) throw HttpError.service(404, 'The user does not exist.', 'inexistent_user');
  const served =
    state.settings.permissionSources === false ? permissions.map(({ sources: _, ...rest }) => rest) : permissions;
  sendJson(call.res, 200, offsetPageBody(served, page, 'permissions'), call.headers);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function deleteConnectionUser(state: EmulatorState, call: InterfaceRequest, [id = '']: string[]): void {
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.deleteConnectionUser);
  if (id.length === 0) throw pathError('String is too short (0 chars), minimum 1');
  rejectUnknownParams(call.query, ['email']);
  const email = single(call.query, 'email');
  if (email === undefined) throw queryError('Missing required property: email');
  if (email.length > 254 || !EMAIL.test(email)) {
    throw queryError(`Object didn't pass validation for format email: ${email}`, 'email');
  }
  const connection = state.data.connections.get(id);
  if (!connection) throw HttpError.service(404, 'The connection does not exist', 'inexistent_connection');
  if (!connection.isDatabase) {
    throw HttpError.service(400, 'Connection must be a database connection', 'operation_not_supported');
  }
  const key = email.toLowerCase();
  const user = connection.users.get(key);
  // The real service answers 204 whether or not the user was there (api-notes); the 404 is an opt-in variant.
  if (!user && state.settings.unknownUserDeleteStatus === 404) {
    throw HttpError.service(404, 'The user does not exist.', 'inexistent_user');
  }
  if (user) {
    connection.users.delete(key);
    // One set of users: a deleted user has no permissions left to list.
    state.data.permissions.delete(user.user_id);
    const nowMs = state.now();
    const now = new Date(nowMs).toISOString();
    state.events.append(nowMs, 'user.deleted', {
      object: {
        ...user,
        updated_at: now,
        deleted_at: now,
        identities: [
          { connection: connection.name, provider: connection.strategy, user_id: user.user_id, isSocial: false },
        ],
      },
    });
  }
  sendEmpty(call.res, state.settings.deleteUserStatus ?? 204, call.headers);
}

const FROM_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The vendor's answers (api-notes: Event stream). */
const STREAM_ERRORS = {
  badCursor: () => HttpError.service(400, 'Invalid cursor format.', 'invalid_cursor'),
  badEventType: () => HttpError.service(400, 'Unsupported event type.', 'invalid_query_string'),
  expiredCursor: () =>
    HttpError.service(410, 'Cursor points to data no longer available in the stream.', 'cursor_expired'),
  /** A tenant without the Events feature (api-notes). */
  noEventsFeature: () => HttpError.service(404, 'Not found'),
  tooManyStreams: () =>
    HttpError.service(403, 'Maximum concurrent event stream connections reached. Please close existing connections.'),
};

function subscribeToEvents(state: EmulatorState, call: InterfaceRequest): void {
  if (!state.settings.eventsFeature) throw STREAM_ERRORS.noEventsFeature();
  requireScope(scopesOf(state, call), ENDPOINT_SCOPES.events);
  rejectUnknownParams(call.query, ['from', 'from_timestamp', 'event_type']);
  const types = call.query.getAll('event_type');
  if (!types.every(isEventType)) throw STREAM_ERRORS.badEventType();
  const filter = types.length > 0 ? new Set<EventType>(types) : undefined;
  const fromQuery = single(call.query, 'from');
  const fromTimestamp = single(call.query, 'from_timestamp');
  if (fromQuery !== undefined && fromTimestamp !== undefined) {
    throw queryError('from and from_timestamp are mutually exclusive');
  }
  const header = call.req.headers['last-event-id'];
  const lastEventId = Array.isArray(header) ? header[0] : header;
  // A resuming client (EventSource) keeps its first URL and adds the header: the header wins over both parameters.
  const from = lastEventId !== undefined && lastEventId !== '' ? lastEventId : fromQuery;
  let start: number;
  if (from !== undefined && from !== '') {
    const checked = state.events.checkOffset(from);
    if (!checked.ok && checked.reason === 'expired') throw STREAM_ERRORS.expiredCursor();
    if (!checked.ok) throw STREAM_ERRORS.badCursor();
    start = checked.index + 1;
  } else if (fromTimestamp !== undefined) {
    if (!FROM_TIMESTAMP.test(fromTimestamp) || Number.isNaN(Date.parse(fromTimestamp))) {
      throw queryError('Expected a timestamp of the form YYYY-MM-DDTHH:MM:SSZ (20 characters)', 'from_timestamp');
    }
    start = state.events.indexAtTime(Date.parse(fromTimestamp));
  } else {
    start = state.events.head;
  }
  if (state.streams.count >= state.settings.maxStreams) throw STREAM_ERRORS.tooManyStreams();
  call.res.writeHead(200, {
    ...call.headers,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  call.res.flushHeaders();
  call.res.socket?.setNoDelay(true);
  state.streams.open(call.res, state.events, start, filter, () => ({
    heartbeatMs: state.settings.heartbeatMs,
    retryMs: state.settings.streamRetryMs,
    dropAfterEvents: state.settings.dropStreamsAfter,
    lifetimeMs: state.settings.streamLifetimeMs,
  }));
}
