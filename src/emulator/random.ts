/**
 * Deterministic pseudo-random numbers. Seeded data must be a pure function of the seed, and events are generated
 * lazily by index, so besides a sequential generator there is `hashOf(seed, ...parts)` for random access.
 */

/** A 32-bit integer mix (the finaliser of MurmurHash3), good enough to decorrelate neighbouring inputs. */
function mix32(input: number): number {
  let h = input | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** An unsigned 32-bit hash of a seed and integer parts; the same inputs always give the same output. */
export function hashOf(seed: number, ...parts: number[]): number {
  let h = mix32(seed ^ 0x9e3779b9);
  for (const part of parts) {
    h = mix32(h ^ mix32(part + 0x7f4a7c15));
  }
  return h;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Six base-62 digits of an unsigned 32-bit number (62^6 > 2^32, so different numbers give different words). */
function base62Of32(value: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < 6; i++) {
    out += BASE62[rest % 62];
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * 12 letters and digits standing for `index` (0 to 2^53), scrambled by `seed`. A Feistel network is a bijection
 * whatever its round function, so different indices always give different words: ids made from it never collide.
 */
export function uniqueWord(seed: number, index: number): string {
  let left = Math.floor(index / 2 ** 32) >>> 0;
  let right = index >>> 0;
  for (let round = 0; round < 4; round++) {
    [left, right] = [right, (left ^ hashOf(seed, 21, round, right)) >>> 0];
  }
  return base62Of32(left) + base62Of32(right);
}

/** A sequential generator (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number, stream = 0) {
    this.state = hashOf(seed, stream);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Lower-case letters and digits. */
  id(length: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  /** Letters of both cases and digits. */
  alnum(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += BASE62[Math.floor(this.next() * 62)];
    return out;
  }

  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = out[i] as T;
      out[i] = out[j] as T;
      out[j] = a;
    }
    return out;
  }
}
