/**
 * The control API under `/__emulator/` of an emulator with it on (on loopback unless `--no-control`, elsewhere with
 * `--control`), as documented (`svcadm emulator --help`, the README): one entry per route. Pure data, so that help
 * can show it without loading the emulator.
 */
export interface ControlRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** The JSON body it takes, `-` for none. */
  body: string;
  /** What it does, and what it answers. */
  does: string;
  /** Other methods that do the same. */
  alsoAs?: ReadonlyArray<'PUT' | 'POST'>;
}

export const CONTROL_PREFIX = '/__emulator';

/** The `errorCode` of the 404 an emulator with its control API off answers under `/__emulator`. */
export const CONTROL_OFF = 'control_disabled';

export const CONTROL_ROUTES: readonly ControlRoute[] = [
  { method: 'GET', path: '/', body: '-', does: 'url, seed, settings, fixtures, eventHead, counters' },
  {
    method: 'POST',
    path: '/events',
    body: '{"type", "count"?: 1..100000, "object"?, "previous_object"?, "test"?}',
    does: 'emits events now: {"before","offsets"} (events tail --from <before> replays them)',
  },
  {
    method: 'POST',
    path: '/faults',
    body: '{"path"?: "/…", "method"?, "status"?: 400..599, "count"?, "retryAfter"?, "kind"?, "skip"?, "body"?}',
    does: 'the next <count> requests under <path> fail (kind status|malformed|truncated|reset): 201 {"fault"}',
  },
  { method: 'GET', path: '/faults', body: '-', does: 'the queued faults: {"faults"}' },
  { method: 'DELETE', path: '/faults', body: '-', does: 'clears the queued faults' },
  { method: 'GET', path: '/settings', body: '-', does: 'the settings: {"settings"}' },
  {
    method: 'PATCH',
    path: '/settings',
    body: '{"latencyMs"?, "rateLimit"?, "failRate"?, "pageCap"?, …}',
    does: 'changes settings (bounds as the flags; PUT and POST too): {"settings"}',
    alsoAs: ['PUT', 'POST'],
  },
  { method: 'GET', path: '/requests', body: '-', does: 'the recent requests and counters' },
  { method: 'DELETE', path: '/requests', body: '-', does: 'clears the request log' },
  {
    method: 'POST',
    path: '/streams/drop',
    body: '{"mode"?: "end" or "destroy"}',
    does: 'ends every open event stream: {"dropped"}',
  },
  {
    method: 'POST',
    path: '/streams/error',
    body: '{"code", "message"?}',
    does: 'sends an event: error on every open stream: {"sent"}',
  },
  { method: 'POST', path: '/cursors/expire', body: '-', does: 'expires every cursor and checkpoint' },
  { method: 'POST', path: '/tokens/revoke', body: '-', does: 'revokes every token issued' },
  {
    method: 'POST',
    path: '/client-keys',
    body: '{"client", "clientSecret", "publicKey"}',
    does: 'registers a public key on a client: 201 {"clientId","keys"}',
  },
  {
    method: 'POST',
    path: '/data',
    body: '{"kind", "id", "set"?: {field: value}, "remove"?: true}',
    does: 'edits one seeded policy, connection or provisioning, by id (events never do): {"edited"}; 404 for none',
  },
  {
    method: 'POST',
    path: '/reset',
    body: '-',
    does: 'back to the seed: data, faults, settings, request log, client keys',
  },
];

/** The routes as help text: one line each (wrapped by help), the method and path, then the body and what it does. */
export function controlApiText(): string {
  const routes = CONTROL_ROUTES.map((r) => ({
    ...r,
    at: `${r.method} ${CONTROL_PREFIX}${r.path === '/' ? '' : r.path}`,
  }));
  const width = Math.max(...routes.map((r) => r.at.length));
  return routes.map((r) => `  ${r.at.padEnd(width)}  ${r.body === '-' ? '' : `${r.body} → `}${r.does}`).join('\n');
}
