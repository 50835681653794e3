/** `svcadm: interrupted after 12 events (…)`: how a run stopped, for people, when it does not forward. */
export function stopLine(how: string, count: number, extras: readonly string[]): string {
  const more = extras.map((extra) => ` (${extra})`).join('');
  return `svcadm: ${how} after ${count} ${count === 1 ? 'event' : 'events'}${more}`;
}

/** `3 malformed lines skipped`, or nothing. */
export function skippedText(malformed: number): string | undefined {
  return malformed > 0 ? `${malformed} malformed ${malformed === 1 ? 'line' : 'lines'} skipped` : undefined;
}
