import { isLoopbackHost } from '../../config/tenant.js';
import { type EventType, isEventType, suggestEventTypes } from '../../domain/event-types.js';
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
import { parseDuration, parseIntegerOption } from '../../util/duration.js';

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
  /** `--control` true, `--no-control` false, neither undefined (on for a loopback address). */
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
  // On by default where only this machine reaches it: `emulator trigger` works after a plain start.
  o.control = flags.control ?? isLoopbackHost(o.host ?? '127.0.0.1');
  if (flags.directoryProvisioning === false) o.directoryProvisioning = false;
  if (flags.rateLimitPolicies === false) o.rateLimitPolicies = false;
  return o;
}

/** `svcadm emulator`'s line: the flags as given, and the emulator's options read from them. */
export interface EmulatorCommand {
  flags: EmulatorFlags;
  options: EmulatorOptions;
}

/** The most events one `emulator trigger` emits (the control API takes up to 100,000; the answer lists each offset). */
export const TRIGGER_COUNT_MAX = 10_000;
/** The most requests one `emulator fault` fails. */
export const FAULT_COUNT_MAX = 100_000;
/** The longest `Retry-After` a fault sends, in seconds (a day). */
export const RETRY_AFTER_MAX = 86_400;
const FAULT_PATH_MAX = 1000;

/** `emulator trigger <event-type> [--count n]`. */
export interface TriggerOptions {
  type: EventType;
  count: number;
}

/** `emulator trigger`'s line -> what to emit; a type that is not one of the 25 is a usage error with a suggestion. */
export function parseTriggerOptions(type: string, raw: { count?: string }): TriggerOptions {
  const name = type.trim();
  if (!isEventType(name)) {
    const suggestion = suggestEventTypes(name);
    throw new UsageError(
      `unknown event type '${name}'${suggestion && !suggestion.includes(',') ? ` (did you mean ${suggestion}?)` : ''}`,
      "run 'svcadm emulator trigger --help' for the 25 event types",
    );
  }
  const count = raw.count === undefined ? 1 : parseIntegerOption(raw.count, '--count', 1, TRIGGER_COUNT_MAX);
  return { type: name, count };
}

/** `emulator fault <path> --status <code> [--count n] [--retry-after s]`: the body of `POST /__emulator/faults`. */
export interface FaultOptions {
  path: string;
  status: number;
  count: number;
  retryAfter?: number;
}

export interface FaultRaw {
  status?: string;
  count?: string;
  retryAfter?: string;
}

/** `emulator fault`'s line -> the fault to add; every value checked here, so a bad one sends nothing (exit 2). */
export function parseFaultOptions(path: string, raw: FaultRaw): FaultOptions {
  if (!path.startsWith('/')) {
    throw new UsageError(`the path must start with /, got '${path}'`, 'e.g. /rate-limit-policies or /api/v2/users');
  }
  if (path.length > FAULT_PATH_MAX) throw new UsageError(`the path must be at most ${FAULT_PATH_MAX} characters`);
  if (/[\s?#\p{Cc}]/u.test(path)) {
    throw new UsageError('the path is a path prefix: no spaces, control characters, query (?) or fragment (#)');
  }
  if (raw.status === undefined) throw new UsageError('--status is required: the HTTP status the requests fail with');
  const out: FaultOptions = {
    path,
    status: parseIntegerOption(raw.status, '--status', 400, 599),
    count: raw.count === undefined ? 1 : parseIntegerOption(raw.count, '--count', 1, FAULT_COUNT_MAX),
  };
  if (raw.retryAfter !== undefined) {
    out.retryAfter = parseIntegerOption(raw.retryAfter, '--retry-after', 0, RETRY_AFTER_MAX);
  }
  return out;
}

/** `emulator reset [--faults]`: the whole tenant back to its seed, or only its queued faults cleared. */
export interface ResetOptions {
  faultsOnly: boolean;
}
