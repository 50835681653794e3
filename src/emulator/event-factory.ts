import { EVENT_TYPES, type EventType } from '../domain/event-types.js';
import { makeConnectionObject } from './connection-object.js';
import { hashOf, Random, uniqueWord } from './random.js';
import { type EventSubjects, HOSTILE_TEXT, type TenantConnection } from './seed-data.js';

export interface EventEnvelope {
  specversion: '1.0';
  type: EventType;
  /** `urn:svc:<tenant>.<region domain>`. */
  source: string;
  /**
   * `evt_` and 22 letters and digits (the docs' schema), every fourth `evt_` and 16 (the docs' examples): unique, then
   * random. Clients must not check the length (api-notes, round 4).
   */
  id: string;
  time: string;
  data: { object: unknown; previous_object?: unknown; context: Record<string, unknown> };
  svctenant: string;
  svcstream: string;
  /** `test` on test events only; normal events do not carry it (api-notes). */
  svcpurpose?: 'test';
}

/** What the control API may set on an event it emits. */
export interface EventContent {
  /** `data.object`, sent as given. */
  object?: unknown;
  /** `data.previous_object` of an `.updated` event; default a copy of `object`. */
  previousObject?: unknown;
  /** Marks it a test event (`svcpurpose: test`). */
  test?: boolean;
}

/** The region part of every event's `source`: emulated tenants live in one plausible, made-up region. */
export const REGION_DOMAIN = 'us.svc.example';

/** Relative frequencies: user events dominate a real tenant's stream. */
const WEIGHTS: Partial<Record<EventType, number>> = {
  'user.created': 12,
  'user.updated': 10,
  'user.deleted': 4,
  'connection.updated': 3,
  'group.member.added': 3,
  'organization.member.added': 3,
};

const CUMULATIVE: Array<[EventType, number]> = (() => {
  let total = 0;
  return EVENT_TYPES.map((type): [EventType, number] => {
    total += WEIGHTS[type] ?? 1;
    return [type, total];
  });
})();
const TOTAL_WEIGHT = CUMULATIVE[CUMULATIVE.length - 1]?.[1] ?? 1;

const CITIES: Array<Record<string, string | number>> = [
  {
    continent_code: 'EU',
    country_code: 'FR',
    country_name: 'France',
    subdivision_code: 'IDF',
    subdivision_name: 'Île-de-France',
    city_name: 'Paris',
    time_zone: 'Europe/Paris',
    latitude: 48.8566,
    longitude: 2.3522,
  },
  {
    continent_code: 'NA',
    country_code: 'US',
    country_name: 'United States',
    subdivision_code: 'WA',
    subdivision_name: 'Washington',
    city_name: 'Seattle',
    time_zone: 'America/Los_Angeles',
    latitude: 47.6062,
    longitude: -122.3321,
  },
  {
    continent_code: 'AS',
    country_code: 'JP',
    country_name: 'Japan',
    subdivision_code: '13',
    subdivision_name: 'Tokyo',
    city_name: 'Tokyo',
    time_zone: 'Asia/Tokyo',
    latitude: 35.6762,
    longitude: 139.6503,
  },
];

/**
 * Builds events lazily: the event at an index is a pure function of the seed, the index and its time. The users and
 * connections they name are the seeded tenant's, so that a tail's events can be looked up with the other commands.
 */
export class EventFactory {
  private readonly firstTypes: EventType[];
  /** The connections a connection event names: OIDC ones, whose options the connection object describes. */
  private readonly ssoConnections: readonly TenantConnection[];

  /**
   * @param tenantDomain where the emulator is served (`host:port`), as requests and connection options see it
   * @param tenantName the tenant's name: `svctenant`, and the first label of `source`
   * @param subjects the tenant's users and connections, as seeded
   */
  constructor(
    private readonly seed: number,
    private readonly tenantDomain: string,
    private readonly tenantName: string,
    private readonly streamId: string,
    private readonly subjects: EventSubjects,
  ) {
    // The first 25 events are the 25 types in a seeded order, so any history covers them all.
    this.firstTypes = new Random(seed, 77).shuffle(EVENT_TYPES);
    const sso = subjects.connections.filter((c) => c.strategy === 'oidc');
    this.ssoConnections = sso.length > 0 ? sso : subjects.connections;
  }

  typeAt(index: number): EventType {
    const first = this.firstTypes[index];
    if (first !== undefined) return first;
    const roll = hashOf(this.seed, 3, index) % TOTAL_WEIGHT;
    for (const [type, upTo] of CUMULATIVE) if (roll < upTo) return type;
    return 'user.created';
  }

  make(index: number, timeMs: number, type: EventType, content: EventContent = {}): EventEnvelope {
    const rng = new Random(this.seed, 1_000_000 + index);
    const envelope: EventEnvelope = {
      specversion: '1.0',
      type,
      source: `urn:svc:${this.tenantName}.${REGION_DOMAIN}`,
      id: `evt_${uniqueWord(this.seed, index)}${rng.alnum(10).slice(0, index % 4 === 3 ? 4 : 10)}`,
      time: new Date(timeMs).toISOString(),
      data: { ...this.body(type, rng, timeMs, content), context: this.context(rng) },
      svctenant: this.tenantName,
      svcstream: this.streamId,
    };
    if (content.test === true) envelope.svcpurpose = 'test';
    return envelope;
  }

  private body(
    type: EventType,
    rng: Random,
    timeMs: number,
    content: EventContent,
  ): { object: unknown; previous_object?: unknown } {
    if (content.object === undefined) return this.objectFor(type, rng, timeMs);
    if (!type.endsWith('.updated')) return { object: content.object };
    return { object: content.object, previous_object: content.previousObject ?? structuredClone(content.object) };
  }

  private context(rng: Random): Record<string, unknown> {
    return {
      tenant: { id: this.tenantName },
      client: { id: rng.id(32), name: rng.pick(['Dashboard', 'Provisioning Bot', 'svcadm CI']), metadata: {} },
      connection: this.named(rng.pick(this.subjects.connections)),
      request: {
        geo: rng.pick(CITIES),
        hostname: this.tenantDomain,
        ip: `203.0.113.${rng.int(1, 254)}`,
        method: rng.pick(['POST', 'PATCH', 'DELETE']),
        user_agent: rng.pick(['svcadm/0.1.0 node/20', 'Mozilla/5.0 (X11; Linux x86_64)', 'node-sdk/4.2.0']),
        custom_domain: '',
      },
    };
  }

  /** A seeded object for `type`: the shapes of api-notes' envelope details, every `.updated` with its previous. */
  private objectFor(type: EventType, rng: Random, timeMs: number): { object: unknown; previous_object?: unknown } {
    const group = type.split('.')[0];
    const action = type.slice(type.lastIndexOf('.') + 1);
    const when = new Date(timeMs).toISOString();
    // Role assignments say when they were made or removed.
    const roleTime = action === 'assigned' ? { created_at: when } : { deleted_at: when };
    if (group === 'connection') {
      const seeded = rng.pick(this.ssoConnections);
      const connection = {
        ...makeConnectionObject(rng, this.tenantDomain),
        ...this.named(seeded),
        display_name: seeded.displayName,
        realms: [seeded.name],
      };
      if (action === 'updated') {
        return {
          object: connection,
          previous_object: { ...connection, display_name: `${connection.display_name} (old)` },
        };
      }
      return { object: connection };
    }
    if (group === 'user') {
      const user = this.user(rng, when);
      if (action === 'updated') {
        return { object: user, previous_object: { ...user, name: `${user.name} Old`, updated_at: user.created_at } };
      }
      if (action === 'deleted') return { object: { ...user, updated_at: when, deleted_at: when } };
      return { object: user };
    }
    if (group === 'group') {
      const grp = { id: `grp_${rng.id(16)}`, name: `team-${rng.id(5)}` };
      if (type.startsWith('group.member.')) return { object: { group: grp, member: this.member(rng) } };
      if (type.startsWith('group.role.')) return { object: { group: grp, role: this.role(rng), ...roleTime } };
      const full = { ...grp, description: 'Synchronised from the directory', created_at: when, updated_at: when };
      if (action === 'updated') return { object: full, previous_object: { ...full, description: '' } };
      return { object: full };
    }
    const org = { id: `org_${rng.id(16)}`, name: `org-${rng.id(6)}` };
    if (type.startsWith('organization.connection.')) {
      const link = {
        organization: org,
        connection: this.named(rng.pick(this.ssoConnections)),
        assign_membership_on_login: rng.bool(),
        show_as_button: rng.bool(),
      };
      if (action === 'updated') {
        return {
          object: link,
          previous_object: { ...link, assign_membership_on_login: !link.assign_membership_on_login },
        };
      }
      return { object: link };
    }
    if (type.startsWith('organization.group.role.')) {
      return {
        object: { organization: org, group: { id: `grp_${rng.id(16)}` }, role: this.role(rng), ...roleTime },
      };
    }
    if (type.startsWith('organization.member.role.')) {
      return {
        object: {
          organization: org,
          user: { user_id: rng.pick(this.subjects.users).user.user_id },
          role: this.role(rng),
          ...roleTime,
        },
      };
    }
    if (type.startsWith('organization.member.')) {
      const user = this.user(rng, when);
      return { object: { organization: org, user: { user_id: user.user_id, email: user.email } } };
    }
    const full = { ...org, display_name: org.name.toUpperCase(), metadata: { plan: rng.pick(['free', 'pro']) } };
    if (action === 'updated') return { object: full, previous_object: { ...full, display_name: org.name } };
    return { object: full };
  }

  /** A group's member names its kind: a user, or a group synchronised from a connection. */
  private member(rng: Random): Record<string, string> {
    if (rng.bool(0.8)) return { member_type: 'user', id: rng.pick(this.subjects.users).user.user_id };
    const connection = rng.pick(this.ssoConnections);
    return { member_type: 'group', id: `grp_${rng.id(16)}`, type: 'connection', connection_id: connection.id };
  }

  private named(connection: TenantConnection): { id: string; name: string; strategy: string } {
    return { id: connection.id, name: connection.name, strategy: connection.strategy };
  }

  private role(rng: Random): { id: string; name: string } {
    return { id: `rol_${rng.id(16)}`, name: rng.pick(['Viewer', 'Order Manager', 'Billing Admin']) };
  }

  private user(rng: Random, when: string) {
    const { user, connection } = rng.pick(this.subjects.users);
    const space = user.name.indexOf(' ');
    const hostile = rng.next() < 0.01;
    return {
      user_id: user.user_id,
      email: user.email,
      email_verified: rng.bool(0.8),
      name: hostile ? HOSTILE_TEXT : user.name,
      given_name: space < 0 ? user.name : user.name.slice(0, space),
      family_name: space < 0 ? '' : user.name.slice(space + 1),
      created_at: when,
      updated_at: when,
      identities: [
        {
          connection: connection.name,
          provider: connection.strategy,
          user_id: user.user_id.slice(user.user_id.indexOf('|') + 1),
          isSocial: false,
        },
      ],
    };
  }
}
