import { timestampOf } from '../api/timestamp.js';
import { UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { parseDuration } from '../util/duration.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const FUTURE_SLACK_MS = 60_000;

/**
 * `--since`: an RFC 3339 time or a duration back from now, as the exact `YYYY-MM-DDTHH:MM:SSZ` the service takes.
 * `name`: how the caller calls it (the option, or the MCP tool's argument).
 */
export function parseSince(text: string, now: number, name = '--since'): string {
  const value = text.trim();
  let ms: number;
  const match = RFC3339.exec(value);
  if (match) {
    const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
    ms = Date.parse(value.replace(' ', 'T').toUpperCase());
    const check = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
    const valid =
      !Number.isNaN(ms) &&
      check.getUTCMonth() === mo - 1 &&
      check.getUTCDate() === d &&
      h < 24 &&
      mi < 60 &&
      s < 60 &&
      y >= 1970;
    if (!valid) throw new UsageError(`invalid ${name} '${neutralize(text)}': not a real date and time`);
  } else if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(value)) {
    ms = now - parseDuration(value, name);
  } else {
    throw new UsageError(
      `invalid ${name} '${neutralize(text)}'`,
      'give an RFC 3339 time (2024-05-01T12:00:00Z) or a duration back from now (30s, 15m, 2h, 7d)',
    );
  }
  if (ms > now + FUTURE_SLACK_MS) throw new UsageError(`${name} '${neutralize(text)}' is in the future`);
  return timestampOf(ms);
}
