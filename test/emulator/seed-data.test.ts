import { describe, expect, it } from 'vitest';
import { makeSeedData } from '../../src/emulator/seed-data.js';

const DEFAULTS = { seed: 1, users: 50, permissions: 1200, provisionings: 25 };

/** Every user of every connection: user id -> the e-mails and connections that hold it. */
function connectionUsers(data: ReturnType<typeof makeSeedData>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const connection of data.connections.values()) {
    for (const user of connection.users.values()) {
      out.set(user.user_id, [...(out.get(user.user_id) ?? []), `${user.email} in ${connection.name}`]);
    }
  }
  return out;
}

describe('one set of users (issue 29 point 2)', () => {
  it('every user a connection holds has permissions, and every user with permissions is in one connection', () => {
    const data = makeSeedData(DEFAULTS);
    const users = connectionUsers(data);
    expect([...users.keys()].sort()).toEqual([...data.permissions.keys()].sort());
    for (const [id, seats] of users) expect([id, seats.length]).toEqual([id, 1]);
    expect(users.size).toBe(51);
  });

  it('the fixture user is alice@example.com of the database connection; the bulk user has an address too', () => {
    const data = makeSeedData(DEFAULTS);
    const db = data.connections.get(data.fixtures.databaseConnectionId);
    expect(db?.users.get('alice@example.com')?.user_id).toBe(data.fixtures.userId);
    expect(data.fixtures.userId).toBe('db|user-0001');
    expect(db?.users.get('bulk@example.com')?.user_id).toBe(data.fixtures.bulkUserId);
    const staff = [...data.connections.values()].find((c) => c.name === 'Staff-Database');
    expect([...(staff?.users.values() ?? [])].map((u) => [u.user_id, u.email])).toEqual([
      ['db|user-0035', 'ops@example.com'],
      ['db|user-0036', 'alice@example.com'],
    ]);
    expect(data.fixtures.userIds).toEqual(
      Array.from({ length: 50 }, (_, i) => `db|user-${String(i + 1).padStart(4, '0')}`),
    );
  });

  it('--users bounds the ordinary users in the connections as in the permissions', () => {
    const data = makeSeedData({ ...DEFAULTS, users: 10 });
    const users = connectionUsers(data);
    expect([...users.keys()].sort()).toEqual([...data.permissions.keys()].sort());
    expect(data.fixtures.databaseUserEmails).toEqual([
      'alice@example.com',
      'bob+ci@example.com',
      "o'neil@example.com",
      'carol.smith@example.co.uk',
      ...Array.from({ length: 6 }, (_, i) => `user000${i + 1}@example.com`),
    ]);
  });

  it('more users than the named ones: each in the database connection, with permissions', () => {
    const many = makeSeedData({ ...DEFAULTS, users: 400 });
    expect([...connectionUsers(many).keys()].sort()).toEqual([...many.permissions.keys()].sort());
    expect(connectionUsers(many).size).toBe(401);
  });
});
