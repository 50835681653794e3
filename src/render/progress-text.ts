/** `fetched 300 of 1,234` (or `fetched 300` when the total is unknown). */
export function fetchedText(count: number, total?: number): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return total === undefined ? `fetched ${n(count)}` : `fetched ${n(count)} of ${n(total)}`;
}
