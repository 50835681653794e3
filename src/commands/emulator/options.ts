import { clientSecretViolation } from '../../emulator/client-secret-rule.js';
import {
  formatLimitValue,
  isUnknownUserDeleteStatus,
  LIMIT_NAMES,
  LIMITS,
  type Limit,
  limitViolation,
  UNKNOWN_USER_DELETE,
  UNKNOWN_USER_DELETE_STATUSES,
} from '../../emulator/limits.js';
import type { EmulatorOptions } from '../../emulator/options.js';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';

/** The port `svcadm emulator` listens on unless told otherwise (0 picks a free one). */
export const DEFAULT_EMULATOR_PORT = LIMITS.port.commandDefault;

/** The options exactly as commander hands them over: strings for the limits (named after their flags), booleans. */
export interface EmulatorFlags {
  [attribute: string]: string | boolean | undefined;
  host?: string;
  /** The admin client's secret: the global `--client-secret`, which commander hands to the root command. */
  clientSecret?: string;
  /** Path of a PEM public key for the admin client. */
  clientPublicKey?: string;
  control?: boolean;
  logRequests?: boolean;
  /** false with `--no-directory-provisioning`. */
  directoryProvisioning?: boolean;
  /** false with `--no-rate-limit-policies`. */
  rateLimitPolicies?: boolean;
}

/** commander's attribute name of a flag: `--drop-streams-after` -> `dropStreamsAfter`. */
function attributeOf(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

export const FLAGGED_LIMITS = LIMIT_NAMES.flatMap((name) => {
  const limit: Limit = LIMITS[name];
  return limit.flag === undefined ? [] : [{ name, flag: limit.flag, limit }];
});

/** One flag's text -> its value; out of the table's bounds is a UsageError. A bare number is milliseconds for `ms`. */
function flagValue(limit: Limit, flag: string, text: string): number {
  const trimmed = text.trim();
  let value = Number.NaN;
  if (limit.unit === 'ms') value = /^\d+$/.test(trimmed) ? Number(trimmed) : parseDuration(trimmed, flag);
  else if (limit.integer ? /^\d+$/.test(trimmed) : /^\d+(\.\d+)?$/.test(trimmed)) value = Number(trimmed);
  if (limitViolation(limit, value) === undefined) return value;
  const kind = limit.unit === 'ms' ? 'a duration' : limit.integer ? 'a whole number' : 'a number';
  const range =
    limit.max === Number.MAX_SAFE_INTEGER
      ? `of at least ${formatLimitValue(limit, limit.min)}`
      : `from ${formatLimitValue(limit, limit.min)} to ${formatLimitValue(limit, limit.max)}`;
  throw new UsageError(`${flag} must be ${kind} ${range}, got '${text}'`);
}

/** argv strings -> typed emulator options; any bad value is a UsageError (exit 2). */
export function parseEmulatorFlags(flags: EmulatorFlags): EmulatorOptions {
  const o: EmulatorOptions = { host: flags.host ?? '127.0.0.1', port: DEFAULT_EMULATOR_PORT };
  if (o.host === '') throw new UsageError('--host must not be empty');
  for (const { name, flag, limit } of FLAGGED_LIMITS) {
    const text = flags[attributeOf(flag)];
    if (typeof text === 'string') o[name] = flagValue(limit, flag, text);
  }
  const unknownUserDelete = flags[attributeOf(UNKNOWN_USER_DELETE.flag)];
  if (typeof unknownUserDelete === 'string') {
    const status = Number(unknownUserDelete.trim());
    if (!/^\d+$/.test(unknownUserDelete.trim()) || !isUnknownUserDeleteStatus(status)) {
      throw new UsageError(
        `${UNKNOWN_USER_DELETE.flag} must be ${UNKNOWN_USER_DELETE_STATUSES.join(' or ')}, got '${unknownUserDelete}'`,
      );
    }
    o.unknownUserDeleteStatus = status;
  }
  if (typeof flags.clientSecret === 'string') {
    const violation = clientSecretViolation(flags.clientSecret);
    if (violation !== undefined) throw new UsageError(`--client-secret ${violation}`);
    o.clientSecret = flags.clientSecret;
  }
  if (flags.withoutEventsFeature === true) o.eventsFeature = false;
  o.control = flags.control === true;
  if (flags.directoryProvisioning === false) o.directoryProvisioning = false;
  if (flags.rateLimitPolicies === false) o.rateLimitPolicies = false;
  return o;
}

/** `svcadm emulator`'s line: the flags as given, and the emulator's options read from them. */
export interface EmulatorCommand {
  flags: EmulatorFlags;
  options: EmulatorOptions;
}
