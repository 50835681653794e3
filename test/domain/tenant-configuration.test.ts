import { describe, expect, it } from 'vitest';
import {
  CONFIGURATION_KINDS,
  compareItems,
  configurationOf,
  keyedItems,
  naturalKey,
  VOLATILE_FIELDS,
} from '../../src/domain/tenant-configuration.js';

// The comparison of `svcadm diff`, pure: items in, differences out, no socket.

const policy = (selector: string, action: string, extra: Record<string, unknown> = {}) =>
  configurationOf('policies', {
    id: `rlp_${selector}`,
    resource: 'oauth_authentication_api',
    consumer: 'client',
    consumer_selector: selector,
    configuration: { action, limit: 10 },
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

describe('the allow-lists', () => {
  it('keep the configuration only: no id, time, status, option or unknown field; keys in order', () => {
    expect(
      configurationOf('connections', {
        id: 'con_1',
        name: 'db',
        strategy: 'auth0',
        options: { client_secret: 's3cr3t', password_policy: 'good' },
        enabled_clients: ['abc'],
        realms: ['db'],
        surprise: 'x',
      }),
    ).toEqual({ name: 'db', realms: ['db'], strategy: 'auth0' });
    expect(
      Object.keys(
        configurationOf('provisionings', {
          synchronize_groups: 'all',
          connection_id: 'con_1',
          connection_name: 'okta',
          last_synchronization_status: 'failed',
          mapping: [
            { svc: 'given_name', idp: 'givenName' },
            { svc: 'email', idp: 'mail', extra: 1 },
          ],
        }),
      ),
    ).toEqual(['connection_name', 'mapping', 'synchronize_groups']);
  });

  it('never keep a volatile field', () => {
    for (const kind of CONFIGURATION_KINDS) {
      const item = Object.fromEntries(VOLATILE_FIELDS[kind].map((f) => [f.split('.')[0], 'x']));
      const kept = JSON.stringify(configurationOf(kind, item));
      for (const field of VOLATILE_FIELDS[kind]) expect(kept).not.toContain(`"${field.split('.').pop()}"`);
    }
  });

  it('sort a list of objects (a mapping), so that the same set is the same text', () => {
    const a = configurationOf('provisionings', {
      mapping: [
        { svc: 'b', idp: '2' },
        { svc: 'a', idp: '1' },
      ],
    });
    const b = configurationOf('provisionings', {
      mapping: [
        { idp: '1', svc: 'a' },
        { svc: 'b', idp: '2' },
      ],
    });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe('natural keys', () => {
  it('a policy: resource, consumer and selector; a client_id: selector only matches the same id', () => {
    expect(naturalKey('policies', policy('client_id:abc', 'allow'))).toBe(
      'oauth_authentication_api client client_id:abc',
    );
    const d = compareItems('policies', [policy('client_id:abc', 'allow')], [policy('client_id:ABC', 'allow')]);
    expect(d.map((x) => [x.change, x.key])).toEqual([
      ['added', 'oauth_authentication_api client client_id:ABC'],
      ['removed', 'oauth_authentication_api client client_id:abc'],
    ]);
  });

  it('a key met twice on one side is kept twice, numbered', () => {
    const items = [
      configurationOf('connections', { name: 'a' }),
      configurationOf('connections', { name: 'a', strategy: 'x' }),
    ];
    expect(keyedItems('connections', items).map(([key]) => key)).toEqual(['a', 'a #2']);
  });
});

describe('compareItems', () => {
  it('ignores ids and times: the same configuration under other ids is alike', () => {
    const left = [policy('default', 'allow', { id: 'rlp_1', updated_at: '2025-01-01T00:00:00.000Z' })];
    const right = [policy('default', 'allow', { id: 'rlp_2', updated_at: '2026-11-28T00:00:00.000Z' })];
    expect(compareItems('policies', left, right)).toEqual([]);
  });

  it('a changed item: each field as a dotted path, left and right; a missing field is null', () => {
    const left = [policy('default', 'block')];
    const right = [
      configurationOf('policies', {
        ...policy('default', 'redirect'),
        configuration: { action: 'redirect', redirect_uri: 'https://x' },
      }),
    ];
    expect(compareItems('policies', left, right)).toEqual([
      {
        kind: 'policies',
        key: 'oauth_authentication_api client default',
        change: 'changed',
        fields: [
          { field: 'configuration.action', left: 'block', right: 'redirect' },
          { field: 'configuration.limit', left: 10, right: null },
          { field: 'configuration.redirect_uri', left: null, right: 'https://x' },
        ],
      },
    ]);
  });

  it('--ignore leaves out a field and everything beneath it', () => {
    const left = [policy('default', 'block')];
    const right = [policy('default', 'log')];
    expect(compareItems('policies', left, right, new Set(['configuration']))).toEqual([]);
    expect(compareItems('policies', left, right, new Set(['configuration.limit']))).toHaveLength(1);
  });

  it('5,000 items a side, every one changed, in well under a second', () => {
    const left = Array.from({ length: 5000 }, (_, i) => policy(`client_id:${i}`, 'allow'));
    const right = Array.from({ length: 5000 }, (_, i) => policy(`client_id:${i}`, 'block'));
    const start = performance.now();
    expect(compareItems('policies', left, right)).toHaveLength(5000);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
