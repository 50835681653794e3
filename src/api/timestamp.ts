// Its own module so that `events tail`'s option parsing does not load the stream's code at start-up.
/** A time as the stream's `from_timestamp` takes it: `YYYY-MM-DDTHH:MM:SSZ`, the seconds rounded down. */
export function timestampOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
