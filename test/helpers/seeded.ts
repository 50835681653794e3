/** A small seeded generator (an LCG), so that a failing case can be made again: numbers in [0, 1), and a pick. */
export function seeded(seed: number): { next(): number; pick<T>(items: readonly T[]): T } {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}
