/**
 * Every numeric knob of the emulator, decided once: the `svcadm emulator` flags, the `startEmulator` options check
 * and the control API's settings check all read this table.
 */

/**
 * How a value is written: `ms` flags take a duration (`250` is milliseconds, `2s`, `5m`), `count` a whole number,
 * `rate` and `share` a decimal number, `seconds` a whole number of seconds.
 */
export type LimitUnit = 'count' | 'ms' | 'seconds' | 'rate' | 'share';

export interface Limit {
  /** The `svcadm emulator` flag, when it has one. */
  readonly flag?: string;
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
  /** The `startEmulator` default. */
  readonly default: number;
  /** The `svcadm emulator` default, where it differs from `default`. */
  readonly commandDefault?: number;
  readonly unit: LimitUnit;
  readonly help: string;
  /** Changeable while running, through the control API's settings. */
  readonly setting: boolean;
}

const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const LIMITS = {
  port: {
    flag: '--port',
    min: 0,
    max: 65_535,
    integer: true,
    default: 0,
    commandDefault: 4010,
    unit: 'count',
    help: 'port to listen on; 0 picks a free one',
    setting: false,
  },
  seed: {
    flag: '--seed',
    min: 0,
    max: 2 ** 32 - 1,
    integer: true,
    default: 1,
    unit: 'count',
    help: 'seed of all generated data and of the client secrets',
    setting: false,
  },
  users: {
    flag: '--users',
    min: 1,
    max: 100_000,
    integer: true,
    default: 50,
    unit: 'count',
    help: 'ordinary users',
    setting: false,
  },
  permissions: {
    flag: '--permissions',
    min: 0,
    max: 1_000_000,
    integer: true,
    default: 1200,
    unit: 'count',
    help: 'permissions of the bulk user',
    setting: false,
  },
  policies: {
    flag: '--policies',
    min: 8,
    max: 100_000,
    integer: true,
    default: 8,
    unit: 'count',
    help: 'rate limit policies (the first 8 cover each configuration and selector form)',
    setting: false,
  },
  provisionings: {
    flag: '--provisionings',
    min: 0,
    max: 1_000_000,
    integer: true,
    default: 260,
    unit: 'count',
    help: 'directory provisioning configurations',
    setting: false,
  },
  events: {
    flag: '--events',
    // The first 25 events are one of each type, so any history covers them all.
    min: 25,
    max: 100_000_000,
    integer: true,
    default: 500,
    unit: 'count',
    help: 'events in the history, spread over the last 24 hours; at least 25',
    setting: false,
  },
  eventRate: {
    flag: '--event-rate',
    min: 0,
    max: 100_000,
    integer: false,
    default: 2,
    unit: 'rate',
    help: 'live events per second; 0 = none',
    setting: true,
  },
  latencyMs: {
    flag: '--latency',
    min: 0,
    max: 600_000,
    integer: true,
    default: 0,
    unit: 'ms',
    help: 'added before every token and interface response',
    setting: true,
  },
  rateLimit: {
    flag: '--rate-limit',
    min: 0,
    max: 1_000_000,
    integer: false,
    default: 100,
    unit: 'rate',
    help: 'requests per second (and bucket size) before 429; 0 = unlimited',
    setting: true,
  },
  failRate: {
    flag: '--fail-rate',
    min: 0,
    max: 1,
    integer: false,
    default: 0,
    unit: 'share',
    help: 'share of interface requests answered 503, from a seeded generator',
    setting: true,
  },
  pageCap: {
    flag: '--page-cap',
    min: 1,
    max: 100,
    integer: true,
    default: 50,
    unit: 'count',
    help: 'largest page served: a bigger per_page or take gets this many; 50 public cloud, 100 private',
    setting: true,
  },
  dropStreamsAfter: {
    flag: '--drop-streams-after',
    min: 0,
    max: UNLIMITED,
    integer: true,
    default: 0,
    unit: 'count',
    help: 'close each event stream after n events; 0 = never',
    setting: true,
  },
  streamLifetimeMs: {
    flag: '--stream-lifetime',
    min: 0,
    max: UNLIMITED,
    integer: true,
    default: 300_000,
    unit: 'ms',
    help: 'close each event stream after this long; 0 = never',
    setting: true,
  },
  maxStreams: {
    flag: '--max-streams',
    min: 0,
    max: 10_000,
    integer: true,
    default: 4,
    unit: 'count',
    help: 'concurrent event streams before 403',
    setting: true,
  },
  heartbeatMs: {
    flag: '--heartbeat',
    min: 0,
    max: 3_600_000,
    integer: true,
    default: 15_000,
    unit: 'ms',
    help: 'interval of stream heartbeats, each a comment and an offset-only message; 0 = none',
    setting: true,
  },
  streamRetryMs: {
    min: 0,
    max: 3_600_000,
    integer: true,
    default: 2000,
    unit: 'ms',
    help: 'the retry: value streams open with',
    setting: true,
  },
  tokenTtlSeconds: {
    min: 0,
    max: 10 * 365 * 86_400,
    integer: true,
    default: 86_400,
    unit: 'seconds',
    help: 'expires_in of issued tokens; 0 issues tokens already expired',
    setting: false,
  },
} as const satisfies Record<string, Limit>;

export type LimitName = keyof typeof LIMITS;

/** The limits the control API may change while running. */
export type SettingLimitName = {
  [K in LimitName]: (typeof LIMITS)[K]['setting'] extends true ? K : never;
}[LimitName];

export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];

export const SETTING_LIMIT_NAMES = LIMIT_NAMES.filter((name): name is SettingLimitName => LIMITS[name].setting);

/** What DELETE /connections/{id}/users answers for an e-mail no user has (api-notes: 204; some services 404). */
export const UNKNOWN_USER_DELETE_STATUSES = [204, 404] as const;
export type UnknownUserDeleteStatus = (typeof UNKNOWN_USER_DELETE_STATUSES)[number];
export const UNKNOWN_USER_DELETE = {
  flag: '--unknown-user-delete',
  default: 204 as UnknownUserDeleteStatus,
  help: 'answer to deleting an e-mail no user has: 204 as the real service, or 404 inexistent_user as some do',
} as const;

export function isUnknownUserDeleteStatus(value: unknown): value is UnknownUserDeleteStatus {
  return (UNKNOWN_USER_DELETE_STATUSES as readonly unknown[]).includes(value);
}

/** Why `value` is not acceptable for `limit`, or undefined when it is. */
export function limitViolation(limit: Limit, value: unknown): string | undefined {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= limit.min &&
    value <= limit.max &&
    (!limit.integer || Number.isInteger(value));
  if (ok) return undefined;
  const kind = limit.integer ? 'an integer' : 'a number';
  return limit.max === UNLIMITED
    ? `must be ${kind} of at least ${limit.min}`
    : `must be ${kind} from ${limit.min} to ${limit.max}`;
}

/** A duration as the flags accept it: `90000` -> `90s`, `300000` -> `5m`. */
export function formatMillis(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** A limit's value as its flag would take it. */
export function formatLimitValue(limit: Limit, value: number): string {
  return limit.unit === 'ms' ? formatMillis(value) : String(value);
}
