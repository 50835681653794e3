const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A time of the service as `2025-06-02 09:30` (UTC), or undefined when it is not a time. */
function utcMinute(value: unknown): string | undefined {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** `2025-06-02` (UTC). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `09:30:12` (UTC). */
export function utcClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** How long ago (or ahead) `ms` is from `now`, in one unit: `just now`, `5m ago`, `3h ago`, `3d ago`, `2y ago`, `in 5h`. */
export function relativeAge(ms: number, now: number): string {
  const diff = now - ms;
  const span = Math.abs(diff);
  if (span < MINUTE) return 'just now';
  let amount: string;
  if (span < HOUR) amount = `${Math.floor(span / MINUTE)}m`;
  else if (span < 2 * DAY) amount = `${Math.floor(span / HOUR)}h`;
  else if (span < 730 * DAY) amount = `${Math.floor(span / DAY)}d`;
  else amount = `${Math.floor(span / (365 * DAY))}y`;
  return diff >= 0 ? `${amount} ago` : `in ${amount}`;
}

/**
 * `2025-06-02 09:30 (3d ago)` for a table: UTC to the minute (`… 09:30 UTC` where no heading says so) and how long
 * ago; undefined when it is not a time.
 */
export function tableTime(value: unknown, now: number, zone = false): string | undefined {
  const text = utcMinute(value);
  if (text === undefined) return undefined;
  return `${text}${zone ? ' UTC' : ''} (${relativeAge(Date.parse(value as string), now)})`;
}
