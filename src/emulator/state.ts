import type { EventLog } from './event-log.js';
import type { StreamHub } from './event-stream.js';
import type { FaultInjector } from './faults.js';
import type { SettingLimitName, UnknownUserDeleteStatus } from './limits.js';
import type { CheckpointCodec } from './pagination.js';
import type { Random } from './random.js';
import type { RateLimiter } from './rate-limiter.js';
import type { RequestLog } from './request-log.js';
import type { SeedData } from './seed-data.js';
import type { TokenService } from './tokens.js';

/** The knobs that may change while running (through the control API); bounds in `limits.ts`. */
export type EmulatorSettings = { [K in SettingLimitName]: number } & {
  unknownUserDeleteStatus: UnknownUserDeleteStatus;
  /** False: a tenant without the Events feature (404 on `/events`). */
  eventsFeature: boolean;
  /**
   * The success of `DELETE /connections/{id}/users`: 204 as the docs say (the default), or 200 with an empty body as a
   * recorded mock shows (api-notes, round 4: any 2xx is a success).
   */
  deleteUserStatus?: 200 | 204;
  /**
   * False: permissions are served without `sources`, as the vendor SDKs' schemas describe them (api-notes, round 4:
   * `sources` may be absent); default true.
   */
  permissionSources?: boolean;
};

/** The features a tenant's plan may lack; each is on unless the emulator was started without it. */
export interface TenantFeatures {
  directoryProvisioning: boolean;
  rateLimitPolicies: boolean;
}

/** Everything the request handlers share. */
export interface EmulatorState {
  origin: string;
  features: TenantFeatures;
  data: SeedData;
  settings: EmulatorSettings;
  tokens: TokenService;
  limiter: RateLimiter;
  faults: FaultInjector;
  failRandom: Random;
  events: EventLog;
  streams: StreamHub;
  checkpoints: CheckpointCodec;
  requests: RequestLog;
  now(): number;
}
