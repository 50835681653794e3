/**
 * A count with its thousands grouped as en-US writes them (`1,234`). Not `toLocaleString('en-US')`: its first call
 * starts ICU's number formatting, about 20 ms, which every `--all` paid for its progress line (issue 22).
 */
export function groupedCount(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `fetched 300 of 1,234` (or `fetched 300` when the total is unknown). */
export function fetchedText(count: number, total?: number): string {
  return total === undefined
    ? `fetched ${groupedCount(count)}`
    : `fetched ${groupedCount(count)} of ${groupedCount(total)}`;
}
