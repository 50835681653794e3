import type { HttpMethod } from './http.js';

/**
 * The operations of the spec (and of `svcadm emulator`), as `svcadm api` paths: what its completion offers. A test
 * checks each against the emulator. `/events` is left out: it is a stream, for `svcadm events tail`.
 */
export const INTERFACE_OPERATIONS: ReadonlyArray<{ method: HttpMethod; path: string }> = [
  { method: 'GET', path: '/rate-limit-policies' },
  { method: 'GET', path: '/rate-limit-policies/{id}' },
  { method: 'GET', path: '/connections' },
  { method: 'GET', path: '/users-by-email' },
  { method: 'GET', path: '/connections-directory-provisionings' },
  { method: 'GET', path: '/users/{id}/permissions' },
  { method: 'DELETE', path: '/connections/{id}/users' },
];

export const INTERFACE_PATHS: readonly string[] = [...new Set(INTERFACE_OPERATIONS.map((o) => o.path))];
