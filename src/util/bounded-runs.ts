/**
 * Runs `work` for each of `items`, at most `limit` at once, each started as soon as one ends; none is started once
 * `stop` aborts. `work` reports its own failures: one that throws stops nothing else.
 */
export async function runBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
  stop?: AbortSignal,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !stop?.aborted) {
      const index = next++;
      await work(items[index] as T, index).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
