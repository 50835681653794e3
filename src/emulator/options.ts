import type { KeyObject } from 'node:crypto';
import { parsePublicKey } from './client-assertion.js';
import { clientSecretViolation } from './client-secret-rule.js';
import {
  isUnknownUserDeleteStatus,
  LIMIT_NAMES,
  LIMITS,
  type LimitName,
  limitViolation,
  UNKNOWN_USER_DELETE,
  type UnknownUserDeleteStatus,
} from './limits.js';

/** Every limit of `limits.ts` is an option of the same name (see the table for bounds, defaults and meaning). */
export type LimitOptions = { [K in LimitName]?: number };

export interface EmulatorOptions extends LimitOptions {
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /** Secret of the admin client; default derived from the seed (the same seed gives the same secret). */
  clientSecret?: string;
  /** PEM public keys (RSA, 2048 bits or more) of the admin client, for `private_key_jwt` authentication. */
  adminPublicKeys?: string[];
  /** False models a tenant without the Events feature: `GET /events` answers 404 `Not found`; default true. */
  eventsFeature?: boolean;
  /** What deleting an e-mail with no user answers; default 204, as the real service. */
  unknownUserDeleteStatus?: UnknownUserDeleteStatus;
  /** Mounts the control API under `/__emulator/`; default false. */
  control?: boolean;
  /** Whether the tenant has directory provisioning; default true. Without it, that list answers 403. */
  directoryProvisioning?: boolean;
  /** Whether the tenant has rate limit policies (Early Access); default true. Without it, the list answers 403. */
  rateLimitPolicies?: boolean;
  /** Receives one line per request. */
  log?: (line: string) => void;
  /** The clock (milliseconds since the epoch); default `Date.now`. For tests of expiry. */
  now?: () => number;
}

export type ResolvedOptions = { [K in LimitName]: number } & {
  host: string;
  clientSecret: string | undefined;
  adminPublicKeys: KeyObject[];
  unknownUserDeleteStatus: UnknownUserDeleteStatus;
  eventsFeature: boolean;
  control: boolean;
  directoryProvisioning: boolean;
  rateLimitPolicies: boolean;
};

/** Fills in defaults and checks every option; a bad one is a RangeError naming it. */
export function resolveOptions(o: EmulatorOptions): ResolvedOptions {
  const limits = {} as { [K in LimitName]: number };
  for (const name of LIMIT_NAMES) {
    const limit = LIMITS[name];
    const value = o[name] ?? limit.default;
    const violation = limitViolation(limit, value);
    if (violation !== undefined) throw new RangeError(`emulator option ${name} ${violation}`);
    limits[name] = value;
  }
  const unknownUserDeleteStatus = o.unknownUserDeleteStatus ?? UNKNOWN_USER_DELETE.default;
  if (!isUnknownUserDeleteStatus(unknownUserDeleteStatus)) {
    throw new RangeError('emulator option unknownUserDeleteStatus must be 204 or 404');
  }
  if (o.clientSecret !== undefined) {
    const violation = clientSecretViolation(o.clientSecret);
    if (violation !== undefined) throw new RangeError(`emulator option clientSecret ${violation}`);
  }
  const adminPublicKeys = (o.adminPublicKeys ?? []).map((pem) => {
    const key = parsePublicKey(pem);
    if (typeof key === 'string') throw new RangeError(`emulator option adminPublicKeys: ${key}`);
    return key;
  });
  return {
    ...limits,
    clientSecret: o.clientSecret,
    adminPublicKeys,
    unknownUserDeleteStatus,
    eventsFeature: o.eventsFeature ?? true,
    host: o.host ?? '127.0.0.1',
    control: o.control ?? false,
    directoryProvisioning: o.directoryProvisioning ?? true,
    rateLimitPolicies: o.rateLimitPolicies ?? true,
  };
}
