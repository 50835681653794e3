import { describe, expect, it } from 'vitest';
import { buildUrl } from '../../src/api/client.js';
import { displayPath, parseApiPath } from '../../src/api/request-path.js';

/** What reaches the wire: the one path reading, then the one URL builder. */
function wire(path: string): string {
  const { segments, query } = parseApiPath(path);
  const grouped: Record<string, string[]> = {};
  for (const [name, value] of query) grouped[name] = [...(grouped[name] ?? []), value];
  const url = buildUrl('https://t.example.com/api/v2', segments, grouped);
  return `${url.pathname}${url.search}`;
}

describe('parseApiPath', () => {
  it.each([
    ['users/db|u1/permissions', '/api/v2/users/db%7Cu1/permissions'],
    ['/users/db%7Cu1/permissions', '/api/v2/users/db%7Cu1/permissions'],
    ['/api/v2/users/db|u1/permissions', '/api/v2/users/db%7Cu1/permissions'],
    ['api/v2', undefined],
    ['/users/a%2Fb', '/api/v2/users/a%2Fb'],
    ['/users/x y', '/api/v2/users/x%20y'],
    ['/roles/', '/api/v2/roles/'],
    ['/c/con_1/users?email=bob+x@example.com', '/api/v2/c/con_1/users?email=bob%2Bx%40example.com'],
    ['/c?email=bob%2Bx%40example.com&flag', '/api/v2/c?email=bob%2Bx%40example.com&flag='],
    ['/e?t=a&t=b', '/api/v2/e?t=a&t=b'],
    ['/apiary/v2', '/api/v2/apiary/v2'],
  ])('%s → %s', (input, expected) => {
    if (expected === undefined) expect(() => wire(input)).toThrow('no path');
    else expect(wire(input)).toBe(expected);
  });

  it.each([
    ['/a/./b', "'.' segments are refused"],
    ['/a/../b', "'..' segments are refused"],
    ['/a/%2e', "'%2e' segments are refused"],
    ['/a/%2E%2e/b', "'%2E%2e' segments are refused"],
    ['..', "'..' segments are refused"],
    ['/a/{user_id}', 'replace the placeholder {user_id}'],
    ['http://x/api/v2/a', 'not a URL'],
    ['/a\nb', 'control characters'],
    ['/a?=1', "query parameter '=1' has no name"],
  ])('refuses %j', (input, message) => {
    expect(() => parseApiPath(input)).toThrow(message);
  });

  it('shows a path as it is sent', () => {
    expect(displayPath(['users', 'db|u1', 'permissions'])).toBe('/users/db%7Cu1/permissions');
  });
});
