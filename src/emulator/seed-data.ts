import type {
  DirectoryProvisioning,
  PermissionSource,
  ProvisioningMapping,
  RateLimitPolicy,
  UserPermission,
} from '../domain/resources.js';
import { Random } from './random.js';

/** Strings meant to test the CLI's neutralisation of control characters: an ANSI colour and a bidi override. */
export const HOSTILE_TEXT = 'corp-\u001b[31mred\u001b[0m-\u202Eexe.txt\u202C';

/** A policy's configuration in one of the forms the spec allows (the seeds cover each). */
export type PolicyConfiguration =
  | { action: 'allow' }
  | { action: 'block' | 'log'; limit: number }
  | { action: 'redirect'; limit: number; redirect_uri: string };

/** A policy as seeded: every field of the spec's, its configuration in one of its forms. */
export interface SeededPolicy extends Required<RateLimitPolicy> {
  configuration: PolicyConfiguration;
}

/** A permission's source as seeded: every field of the spec's. */
export interface SeededPermissionSource extends Required<PermissionSource> {
  source_type: 'DIRECT' | 'ROLE';
}

/** A user's permission as seeded: every field of the spec's, its sources among them. */
export interface PermissionEntry extends Required<UserPermission> {
  sources: SeededPermissionSource[];
}

/** A directory provisioning as seeded: every field of the spec's, and which groups are synchronised. */
export interface SeededProvisioning extends Required<DirectoryProvisioning> {
  /** Which groups are synchronised (api-notes: Directory provisioning). */
  synchronize_groups: 'all' | 'off' | 'selected';
}

export interface ConnectionUser {
  user_id: string;
  email: string;
  name: string;
  created_at: string;
}

export interface TenantConnection {
  id: string;
  name: string;
  displayName: string;
  /** `auth0` for database connections (api-notes: Lists that give the ids). */
  strategy: string;
  isDatabase: boolean;
  /** Keyed by lower-cased e-mail. */
  users: Map<string, ConnectionUser>;
}

export interface EmulatorFixtures {
  /** Every policy id; together they cover each configuration form and each selector form. */
  policyIds: string[];
  /** One policy id per configuration action. */
  policyIdByAction: { allow: string; block: string; log: string; redirect: string };
  /**
   * An ordinary user with permissions both direct and via roles; its id needs percent-encoding (`|`). It is
   * `alice@example.com` of the database connection: every ordinary user is one user in its connection (`users find`)
   * and in the permissions, with the same id.
   */
  userId: string;
  /** The user with `permissions` permissions (default 1200). */
  bulkUserId: string;
  /** Ids of every ordinary user (userId among them), bulk user excluded. */
  userIds: string[];
  databaseConnectionId: string;
  nonDatabaseConnectionId: string;
  /** Existing users of the database connection, including `bob+ci@example.com`. */
  databaseUserEmails: string[];
  /** An address held by users of two connections (`users find` lists both). */
  sharedEmail: string;
  /** Every connection id, in the order `GET /connections` lists them. */
  connectionIds: string[];
  /** The provisioning whose `connection_name` holds an escape sequence and a bidi override. */
  hostileProvisioningConnectionId: string;
  /** A permission of `userId` whose `description` holds an escape sequence and a bidi override. */
  hostilePermissionName: string;
  /** The hostile string itself, as seeded. */
  hostileText: string;
}

export interface SeedData {
  policies: Map<string, SeededPolicy>;
  permissions: Map<string, PermissionEntry[]>;
  provisionings: SeededProvisioning[];
  connections: Map<string, TenantConnection>;
  fixtures: EmulatorFixtures;
}

export interface SeedOptions {
  seed: number;
  users: number;
  permissions: number;
  provisionings: number;
  /** Rate limit policies in all (8 or more; default 8). */
  policies?: number;
}

/** Fixed data times are counted back from here so that they do not depend on when the emulator starts. */
const BASE_TIME = Date.UTC(2025, 5, 2, 9, 30, 0);
const DAY = 86_400_000;

function isoBefore(rng: Random, maxDaysBack: number, base = BASE_TIME): string {
  return new Date(base - rng.int(0, maxDaysBack * DAY)).toISOString().replace(/\.\d{3}Z$/, '.000Z');
}

function makePolicies(rng: Random): SeededPolicy[] {
  const specs: Array<[selector: string, configuration: PolicyConfiguration]> = [
    ['default', { action: 'allow' }],
    [`client_id:${rng.id(32)}`, { action: 'block', limit: 100 }],
    ['client_id:https://cimd.example.com/clients/reporting.json', { action: 'log', limit: 50 }],
    ['cimd_clients', { action: 'redirect', limit: 20, redirect_uri: 'https://status.example.com/slow-down' }],
    ['third_party_clients', { action: 'block', limit: 0 }],
    [`client_id:${rng.id(32)}`, { action: 'redirect', limit: 10_000, redirect_uri: 'https://example.com/too-many' }],
    [`client_id:${rng.id(32)}`, { action: 'allow' }],
    ['client_id:https://partner.example.org/cimd/client-metadata.json', { action: 'log', limit: 0 }],
  ];
  return specs.map(([selector, configuration], index) => {
    const created = isoBefore(rng, 300);
    const updated = new Date(Math.min(Date.parse(created) + rng.int(0, 60) * DAY, BASE_TIME)).toISOString();
    // The first id uses the full 26 characters the spec allows.
    const id = index === 0 ? `rlp_${rng.id(22)}` : `rlp_${rng.id(18)}`;
    return {
      id,
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: selector,
      configuration,
      created_at: created,
      updated_at: updated,
    };
  });
}

/**
 * The policies past the first 8 (`--policies`), each for a client of its own: from a stream of their own, so that
 * everything seeded before them stays what it was.
 */
function addMorePolicies(seed: number, policies: SeededPolicy[], count: number): void {
  const rng = new Random(seed, 19);
  const actions: PolicyConfiguration[] = [
    { action: 'allow' },
    { action: 'block', limit: 100 },
    { action: 'log', limit: 50 },
    { action: 'redirect', limit: 20, redirect_uri: 'https://status.example.com/slow-down' },
  ];
  for (let i = policies.length; i < count; i++) {
    const created = isoBefore(rng, 300);
    policies.push({
      id: `rlp_${rng.id(18)}`,
      resource: 'oauth_authentication_api',
      consumer: 'client',
      consumer_selector: `client_id:bench-${String(i).padStart(6, '0')}-${rng.id(8)}`,
      configuration: { ...(actions[i % actions.length] as PolicyConfiguration) },
      created_at: created,
      updated_at: created,
    });
  }
}

interface ResourceServer {
  identifier: string;
  name: string;
  permissions: Array<[name: string, description: string]>;
}

const RESOURCE_SERVERS: ResourceServer[] = [
  {
    identifier: 'https://api.example.com/orders',
    name: 'Orders API',
    permissions: [
      ['read:orders', 'Read orders'],
      ['create:orders', 'Create orders'],
      ['update:orders', 'Update orders'],
      ['delete:orders', 'Delete orders'],
      ['refund:orders', 'Refund an order'],
    ],
  },
  {
    identifier: 'https://api.example.com/inventory',
    name: 'Inventory API',
    permissions: [
      ['read:stock', 'Read stock levels'],
      ['update:stock', 'Adjust stock levels'],
      ['read:warehouses', 'List warehouses'],
    ],
  },
  {
    identifier: 'https://billing.example.com/',
    name: 'Billing',
    permissions: [
      ['read:invoices', 'Read invoices'],
      ['create:invoices', 'Issue invoices'],
      ['read:payment_methods', 'Read payment methods'],
    ],
  },
  {
    identifier: 'urn:example:reports',
    name: 'Reports',
    permissions: [
      ['read:reports', 'Read reports'],
      ['export:reports', 'Export reports as CSV'],
    ],
  },
];

interface Role {
  id: string;
  name: string;
  grants: Array<[serverIndex: number, permissionIndex: number]>;
}

function makeRoles(rng: Random): Role[] {
  return [
    {
      id: `rol_${rng.id(16)}`,
      name: 'Order Manager',
      grants: [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 0],
      ],
    },
    {
      id: `rol_${rng.id(16)}`,
      name: 'Viewer',
      grants: [
        [0, 0],
        [1, 0],
        [1, 2],
        [2, 0],
        [3, 0],
      ],
    },
    {
      id: `rol_${rng.id(16)}`,
      name: 'Billing Admin',
      grants: [
        [2, 0],
        [2, 1],
        [2, 2],
        [0, 4],
      ],
    },
  ];
}

function permissionsFrom(direct: Array<[number, number]>, roles: Role[]): PermissionEntry[] {
  const entries = new Map<string, PermissionEntry>();
  const add = (serverIndex: number, permissionIndex: number, source: SeededPermissionSource) => {
    const server = RESOURCE_SERVERS[serverIndex];
    const permission = server?.permissions[permissionIndex];
    if (!server || !permission) return;
    const key = `${server.identifier}\u0000${permission[0]}`;
    let entry = entries.get(key);
    if (!entry) {
      entry = {
        sources: [],
        resource_server_identifier: server.identifier,
        permission_name: permission[0],
        resource_server_name: server.name,
        description: permission[1],
      };
      entries.set(key, entry);
    }
    entry.sources.push(source);
  };
  for (const [s, p] of direct) add(s, p, { source_id: '', source_name: '', source_type: 'DIRECT' });
  for (const role of roles) {
    for (const [s, p] of role.grants) add(s, p, { source_id: role.id, source_name: role.name, source_type: 'ROLE' });
  }
  return [...entries.values()].sort(comparePermissions);
}

function comparePermissions(a: PermissionEntry, b: PermissionEntry): number {
  if (a.resource_server_identifier !== b.resource_server_identifier) {
    return a.resource_server_identifier < b.resource_server_identifier ? -1 : 1;
  }
  return a.permission_name < b.permission_name ? -1 : a.permission_name > b.permission_name ? 1 : 0;
}

function makeBulkPermissions(rng: Random, count: number, roles: Role[]): PermissionEntry[] {
  const out: PermissionEntry[] = [];
  const verbs = ['read', 'create', 'update', 'delete', 'approve'];
  for (let i = 0; i < count; i++) {
    const server = Math.floor(i / 100);
    const serverId = `https://api.example.com/bulk-${String(server).padStart(2, '0')}`;
    const verb = verbs[i % verbs.length] as string;
    const thing = `thing-${String(Math.floor(i / verbs.length)).padStart(4, '0')}`;
    const role = rng.pick(roles);
    const sources: SeededPermissionSource[] =
      i % 3 === 0
        ? [{ source_id: role.id, source_name: role.name, source_type: 'ROLE' }]
        : i % 3 === 1
          ? [{ source_id: '', source_name: '', source_type: 'DIRECT' }]
          : [
              { source_id: '', source_name: '', source_type: 'DIRECT' },
              { source_id: role.id, source_name: role.name, source_type: 'ROLE' },
            ];
    out.push({
      sources,
      resource_server_identifier: serverId,
      permission_name: `${verb}:${thing}`,
      resource_server_name: `Bulk API ${String(server).padStart(2, '0')}`,
      description: `${verb[0]?.toUpperCase()}${verb.slice(1)} ${thing}`,
    });
  }
  return out.sort(comparePermissions);
}

const STRATEGIES = ['okta', 'waad', 'google-apps', 'oidc', 'samlp', 'adfs', 'pingfederate'];
const EXTRA_MAPPINGS: ProvisioningMapping[] = [
  { svc: 'name', idp: 'displayName' },
  { svc: 'nickname', idp: 'userName' },
  { svc: 'phone_number', idp: 'mobilePhone' },
  { svc: 'app_metadata.department', idp: 'department' },
  { svc: 'app_metadata.employee_id', idp: 'employeeNumber' },
  { svc: 'user_metadata.locale', idp: 'preferredLanguage' },
];
const SYNCHRONIZE_GROUPS = ['all', 'off', 'selected'] as const;
const SYNC_ERRORS = [
  'Directory returned 401: the provisioning credentials were revoked',
  'Timed out after 300 s while listing groups',
  'Attribute "mail" missing for 3 users',
];

function makeProvisionings(rng: Random, count: number): { list: SeededProvisioning[]; hostileId: string } {
  const list: SeededProvisioning[] = [];
  const orgs = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell', 'soylent', 'wonka'];
  let hostileId = '';
  for (let i = 0; i < count; i++) {
    const strategy = rng.pick(STRATEGIES);
    const connectionId = `con_${rng.id(16)}`;
    const created = Date.parse(isoBefore(rng, 400));
    const updated = Math.min(created + rng.int(0, 90) * DAY, BASE_TIME);
    const lastSync = Math.min(updated + rng.int(0, 30) * DAY + rng.int(0, DAY), BASE_TIME);
    const roll = rng.next();
    const status = roll < 0.8 ? 'success' : roll < 0.93 ? 'failed' : 'in_progress';
    const extras = rng.shuffle(EXTRA_MAPPINGS).slice(0, rng.int(0, 4));
    const hostile = i === Math.min(7, count - 1);
    if (hostile) hostileId = connectionId;
    list.push({
      connection_id: connectionId,
      connection_name: hostile ? HOSTILE_TEXT : `${rng.pick(orgs)}-${strategy}-${String(i + 1).padStart(3, '0')}`,
      strategy,
      mapping: [
        { svc: 'email', idp: strategy === 'waad' ? 'userPrincipalName' : 'mail' },
        { svc: 'family_name', idp: 'sn' },
        { svc: 'given_name', idp: 'givenName' },
        ...extras,
      ],
      synchronize_automatically: rng.bool(0.7),
      synchronize_groups: rng.pick(SYNCHRONIZE_GROUPS),
      created_at: new Date(created).toISOString(),
      updated_at: new Date(updated).toISOString(),
      last_synchronization_at: new Date(lastSync).toISOString(),
      last_synchronization_status: status,
      last_synchronization_error: status === 'failed' ? rng.pick(SYNC_ERRORS) : '',
    });
  }
  return { list, hostileId };
}

const NAMED_DB_USERS: Array<[email: string, name: string]> = [
  ['alice@example.com', 'Alice Example'],
  ['bob+ci@example.com', 'Bob (CI)'],
  ["o'neil@example.com", "Pat O'Neil"],
  ['carol.smith@example.co.uk', 'Carol Smith'],
];
/** How many `userNNNN@example.com` users the database connection holds before the Staff users are seeded. */
const FIRST_GENERIC_USERS = 30;

/** The id of the n-th ordinary user (from 1): the same user in its connection and in `GET /users/{id}/permissions`. */
export function ordinaryUserId(n: number): string {
  return `db|user-${String(n).padStart(4, '0')}`;
}

/**
 * Seats the ordinary users, in order, in their connections: each gets the next id, up to `count` of them (`--users`).
 * A user past the count is still drawn, so that the ids drawn after it do not depend on the count.
 */
class UserSeats {
  #next = 0;
  readonly dbEmails: string[] = [];
  constructor(
    private readonly count: number,
    private readonly database: TenantConnection,
  ) {}

  get seated(): number {
    return Math.min(this.#next, this.count);
  }

  seat(connection: TenantConnection, email: string, name: string, created_at: string): void {
    this.#next++;
    if (this.#next > this.count) return;
    connection.users.set(email.toLowerCase(), { user_id: ordinaryUserId(this.#next), email, name, created_at });
    if (connection === this.database) this.dbEmails.push(email);
  }
}

function makeConnections(
  rng: Random,
  seats: (db: TenantConnection) => UserSeats,
): {
  connections: TenantConnection[];
  seated: UserSeats;
} {
  const db: TenantConnection = {
    id: `con_${rng.id(16)}`,
    name: 'Username-Password-Authentication',
    displayName: 'Username-Password-Authentication',
    strategy: 'auth0',
    isDatabase: true,
    users: new Map(),
  };
  const seated = seats(db);
  const addUser = (connection: TenantConnection, email: string, name: string) => {
    // Drawn and unused since users became one set (their ids are `ordinaryUserId`): keeps later ids what they were.
    rng.hex(24);
    seated.seat(connection, email, name, isoBefore(rng, 500));
  };
  for (const [email, name] of NAMED_DB_USERS) addUser(db, email, name);
  for (let i = 1; i <= FIRST_GENERIC_USERS; i++)
    addUser(db, `user${String(i).padStart(4, '0')}@example.com`, `User ${i}`);
  const staff: TenantConnection = {
    id: `con_${rng.id(16)}`,
    name: 'Staff-Database',
    displayName: 'Staff',
    strategy: 'auth0',
    isDatabase: true,
    users: new Map(),
  };
  addUser(staff, 'ops@example.com', 'Ops');
  const oidc: TenantConnection = {
    id: `con_${rng.id(16)}`,
    name: 'Corporate-OIDC',
    displayName: 'Corporate SSO',
    strategy: 'oidc',
    isDatabase: false,
    users: new Map(),
  };
  const google: TenantConnection = {
    id: `con_${rng.id(16)}`,
    name: 'google-oauth2',
    displayName: 'Google',
    strategy: 'google-oauth2',
    isDatabase: false,
    users: new Map(),
  };
  return { connections: [db, staff, oidc, google], seated };
}

/** The address two database connections hold, as on a tenant where a person signed up twice. */
export const SHARED_EMAIL = 'alice@example.com';
/** The bulk user's address (`users find` gives its id, as for every user). */
export const BULK_USER_EMAIL = 'bulk@example.com';
/** How many connections the tenant has in all: more than one page of 50, so `--all` follows a checkpoint. */
export const CONNECTION_COUNT = 60;
const EXTRA_STRATEGIES = ['samlp', 'oidc', 'waad', 'okta', 'google-apps', 'adfs', 'auth0'];

/**
 * The rest of the tenant's connections, and a second user with the shared address in Staff-Database. Drawn from a
 * stream of their own, so the ids of everything seeded before them stay what they were.
 */
function addMoreConnections(seed: number, connections: TenantConnection[], seated: UserSeats): void {
  const rng = new Random(seed, 13);
  const orgs = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell', 'soylent', 'wonka'];
  const staff = connections[1] as TenantConnection;
  rng.hex(24); // drawn and unused, as in makeConnections
  seated.seat(staff, SHARED_EMAIL, 'Alice (staff)', isoBefore(rng, 500));
  for (let i = connections.length + 1; i <= CONNECTION_COUNT; i++) {
    const strategy = rng.pick(EXTRA_STRATEGIES);
    const org = rng.pick(orgs);
    const name = `${org}-${strategy}-${String(i).padStart(3, '0')}`;
    connections.push({
      id: `con_${rng.id(16)}`,
      name: i === 13 ? HOSTILE_TEXT : name,
      displayName: `${org[0]?.toUpperCase()}${org.slice(1)} (${strategy})`,
      strategy,
      isDatabase: strategy === 'auth0',
      users: new Map(),
    });
  }
}

/**
 * The ordinary users past the named ones (`--users` above 36) in the database connection, and the bulk user's
 * address: from a stream of their own, so that everything seeded before stays what it was.
 */
function addRemainingUsers(seed: number, database: TenantConnection, seated: UserSeats, count: number): void {
  const rng = new Random(seed, 17);
  for (let i = FIRST_GENERIC_USERS + 1; seated.seated < count; i++) {
    seated.seat(database, `user${String(i).padStart(4, '0')}@example.com`, `User ${i}`, isoBefore(rng, 500));
  }
  database.users.set(BULK_USER_EMAIL, {
    user_id: BULK_USER_ID,
    email: BULK_USER_EMAIL,
    name: 'Bulk User',
    created_at: isoBefore(rng, 500),
  });
}

/** The user with `--permissions` permissions. */
const BULK_USER_ID = 'db|user-bulk';

/** A user of the tenant with its connection: what an event about a user names. */
export interface SeatedUser {
  user: ConnectionUser;
  connection: TenantConnection;
}

/** The users and connections the tenant has, for the events to name (never made-up ones). */
export interface EventSubjects {
  /** Every user, in the order of their connections; never empty. */
  users: readonly SeatedUser[];
  /** Every connection, in the order `GET /connections` lists them; never empty. */
  connections: readonly TenantConnection[];
}

/** The subjects of the seeded tenant's events, taken once from `data` as seeded. */
export function eventSubjects(data: SeedData): EventSubjects {
  const connections = [...data.connections.values()];
  const users = connections.flatMap((connection) =>
    [...connection.users.values()].map((user) => ({ user, connection })),
  );
  return { users, connections };
}

/** Everything the emulator serves, as a pure function of the options. Called again on reset. */
export function makeSeedData(options: SeedOptions): SeedData {
  const rng = new Random(options.seed, 1);
  const policies = makePolicies(rng);
  addMorePolicies(options.seed, policies, options.policies ?? policies.length);
  const roles = makeRoles(rng);
  const permissions = new Map<string, PermissionEntry[]>();
  const userIds: string[] = [];
  const hostilePermissionName = 'impersonate:users';
  for (let u = 1; u <= Math.max(1, options.users); u++) {
    const userId = ordinaryUserId(u);
    userIds.push(userId);
    const direct: Array<[number, number]> = [];
    for (let s = 0; s < RESOURCE_SERVERS.length; s++) {
      const server = RESOURCE_SERVERS[s] as ResourceServer;
      for (let p = 0; p < server.permissions.length; p++) if (rng.bool(0.15)) direct.push([s, p]);
    }
    const userRoles = roles.filter(() => rng.bool(0.35));
    if (u === 1) {
      // The fixture user: direct grants, two roles, and one permission held both ways.
      direct.push([0, 0], [0, 3], [3, 1]);
      userRoles.splice(0, userRoles.length, roles[0] as Role, roles[1] as Role);
    }
    const entries = permissionsFrom(direct, userRoles);
    if (u === 1) {
      entries.push({
        sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }],
        resource_server_identifier: 'https://legacy.example.com/admin',
        permission_name: hostilePermissionName,
        resource_server_name: 'Legacy Admin',
        description: `Act as any user ${HOSTILE_TEXT}`,
      });
      entries.sort(comparePermissions);
    }
    permissions.set(userId, entries);
  }
  const bulkUserId = BULK_USER_ID;
  permissions.set(bulkUserId, makeBulkPermissions(rng, options.permissions, roles));
  const provisionings = makeProvisionings(rng, options.provisionings);
  const users = Math.max(1, options.users);
  const { connections, seated } = makeConnections(rng, (db) => new UserSeats(users, db));
  addMoreConnections(options.seed, connections, seated);
  addRemainingUsers(options.seed, connections[0] as TenantConnection, seated, users);
  const byAction = (action: string) => policies.find((p) => p.configuration.action === action)?.id ?? '';
  return {
    policies: new Map(policies.map((p) => [p.id, p])),
    permissions,
    provisionings: provisionings.list,
    connections: new Map(connections.map((c) => [c.id, c])),
    fixtures: {
      policyIds: policies.map((p) => p.id),
      policyIdByAction: {
        allow: byAction('allow'),
        block: byAction('block'),
        log: byAction('log'),
        redirect: byAction('redirect'),
      },
      userId: userIds[0] as string,
      bulkUserId,
      userIds,
      databaseConnectionId: connections[0]?.id ?? '',
      nonDatabaseConnectionId: connections[2]?.id ?? '',
      databaseUserEmails: seated.dbEmails,
      sharedEmail: SHARED_EMAIL,
      connectionIds: connections.map((c) => c.id),
      hostileProvisioningConnectionId: provisionings.hostileId,
      hostilePermissionName,
      hostileText: HOSTILE_TEXT,
    },
  };
}
