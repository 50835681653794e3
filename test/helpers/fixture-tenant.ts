import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempConfigDir } from './run-cli.js';

/** The time the screens are taken at (SVCADM_TEST_NOW): every date and age in them is relative to it. */
export const SCREEN_NOW = '2025-06-05T12:00:00Z';

/** Two names that differ only at the end, ids of 20 characters, a failure with its error, dates days apart. */
export const PROVISIONINGS = [
  {
    connection_id: 'con_0a1B2c3D4e5F6g7H',
    connection_name: 'umbrella-pingfederate-012',
    strategy: 'pingfederate',
    mapping: [
      { svc: 'email', idp: 'mail' },
      { svc: 'family_name', idp: 'sn' },
    ],
    synchronize_automatically: true,
    synchronize_groups: 'all',
    created_at: '2024-11-20T08:00:00.000Z',
    updated_at: '2025-05-01T10:00:00.000Z',
    last_synchronization_at: '2025-06-02T09:30:00.000Z',
    last_synchronization_status: 'success',
    last_synchronization_error: '',
  },
  {
    connection_id: 'con_9z8Y7x6W5v4U3t2S',
    connection_name: 'umbrella-pingfederate-017',
    strategy: 'pingfederate',
    mapping: [{ svc: 'email', idp: 'mail' }],
    synchronize_automatically: false,
    synchronize_groups: 'selected',
    created_at: '2024-12-01T08:00:00.000Z',
    updated_at: '2025-05-20T16:45:00.000Z',
    last_synchronization_at: '2025-06-04T23:10:00.000Z',
    last_synchronization_status: 'failed',
    last_synchronization_error: 'Directory returned 401: the provisioning credentials were revoked',
  },
  {
    connection_id: 'con_Q1w2E3r4T5y6U7i8',
    connection_name: 'acme-okta-003',
    strategy: 'okta',
    mapping: [{ svc: 'email', idp: 'mail' }],
    synchronize_automatically: true,
    synchronize_groups: 'off',
    created_at: '2023-02-14T12:00:00.000Z',
    updated_at: '2025-06-05T11:58:30.000Z',
    last_synchronization_at: '2025-06-05T11:20:00.000Z',
    last_synchronization_status: 'in_progress',
    last_synchronization_error: '',
  },
];

export const PERMISSIONS = [
  {
    permission_name: 'read:orders',
    resource_server_name: 'Orders API',
    resource_server_identifier: 'https://orders.example.com/api',
    description: 'Read every order of the tenant, including archived ones',
    sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
  },
  {
    permission_name: 'read:orders',
    resource_server_name: 'Legacy Orders',
    resource_server_identifier: 'https://legacy.example.com/orders',
    description: 'Read orders of the old shop',
    sources: [{ source_id: 'rol_1', source_name: 'Order Manager', source_type: 'ROLE' }],
  },
  {
    permission_name: 'write:orders',
    resource_server_name: 'Orders API',
    resource_server_identifier: 'https://orders.example.com/api',
    description: 'Create and change orders',
    sources: [
      { source_id: '', source_name: '', source_type: 'DIRECT' },
      { source_id: 'rol_1', source_name: 'Order Manager', source_type: 'ROLE' },
    ],
  },
];

export const POLICY = {
  id: 'rlp_01HZX3QK8M2N4P6R',
  resource: 'oauth_authentication_api',
  consumer: 'client',
  consumer_selector: 'cimd_clients',
  configuration: { action: 'redirect', limit: 20, redirect_uri: 'https://status.example.com/slow-down' },
  created_at: '2025-03-01T08:15:00.000Z',
  updated_at: '2025-06-05T09:00:00.000Z',
};

/** Events over two days (the last two on SCREEN_NOW's day), with the ids of the spec: `evt_` and 16 characters. */
export const EVENTS: Array<{ type: string; offset: string; event: Record<string, unknown> }> = [
  ['user.created', '2025-06-04T22:58:01Z', { user_id: 'db|u1', email: 'ada@example.com', name: 'Ada Lovelace' }],
  [
    'organization.member.role.assigned',
    '2025-06-04T23:40:12Z',
    {
      organization: { id: 'org_1', name: 'acme' },
      user: { user_id: 'db|u2', email: 'grace@example.com' },
      role: { id: 'rol_1', name: 'Order Manager' },
    },
  ],
  ['connection.updated', '2025-06-05T08:02:44Z', { id: 'con_1', name: 'Corporate-OIDC', strategy: 'oidc' }],
  ['group.member.added', '2025-06-05T11:59:30Z', { group: { id: 'grp_1', name: 'billing' }, member: { id: 'db|u3' } }],
].map(([type, time, object], i) => ({
  type: type as string,
  offset: `cur_${String(i + 1).padStart(4, '0')}`,
  event: {
    id: `evt_${'AbCdEfGh'}${String(i + 1).padStart(8, '0')}`,
    source: 'urn:svc:acme.eu',
    specversion: '1.0',
    type,
    time,
    data: { object },
  },
}));

/** One more event for `send`: type, RFC 3339 time, the object. */
export type FixtureEvent = readonly [type: string, time: string, object: Record<string, unknown>];

/** A loopback tenant serving the fixtures above, a token to anyone, and an event stream that stays open. */
export async function startFixtureTenant() {
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/oauth/token')) {
      req.resume();
      return json({ access_token: 'fixture-token', token_type: 'Bearer', expires_in: 86400, scope: 'read:all' });
    }
    if (url.pathname === '/api/v2/connections-directory-provisionings') {
      return json({ directory_provisionings: PROVISIONINGS, next: 'cp_page2' });
    }
    if (url.pathname.endsWith('/permissions')) return json(PERMISSIONS);
    if (url.pathname.startsWith('/api/v2/rate-limit-policies/')) return json(POLICY);
    if (url.pathname === '/api/v2/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(':connected\nretry: 2000\n\n');
      for (const { type, offset, event } of EVENTS) {
        res.write(`id: ${offset}\nevent: ${type}\ndata: ${JSON.stringify({ offset, event })}\n\n`);
      }
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"statusCode":404,"error":"Not Found","message":"Not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let sent = EVENTS.length;
  return {
    url,
    /** Sends events on every open stream, numbered on from the fixtures; resolves once a stream is open. */
    async send(...events: readonly FixtureEvent[]): Promise<void> {
      while (streams.size === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      for (const [type, time, object] of events) {
        sent++;
        const offset = `cur_${String(sent).padStart(4, '0')}`;
        const event = {
          id: `evt_AbCdEfGh${String(sent).padStart(8, '0')}`,
          source: 'urn:svc:acme.eu',
          specversion: '1.0',
          type,
          time,
          data: { object },
        };
        for (const res of streams)
          res.write(`id: ${offset}\nevent: ${type}\ndata: ${JSON.stringify({ offset, event })}\n\n`);
      }
    },
    /** A config folder whose profile `demo` (current) points here. */
    configDir(): string {
      const dir = tempConfigDir();
      mkdirSync(dir, { recursive: true });
      const profiles = {
        current: 'demo',
        profiles: { demo: { domain: url, clientId: 'cli_demo', clientSecret: 's' } },
      };
      writeFileSync(join(dir, 'profiles.json'), JSON.stringify(profiles), { mode: 0o600 });
      return dir;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
