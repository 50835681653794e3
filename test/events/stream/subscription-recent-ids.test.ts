import { describe, expect, it } from 'vitest';
import { RecentIds } from '../../../src/events/stream/subscription.js';

/** The rule in its plainest form: an id is remembered while fewer than 10,000 ids were added after it. */
class Reference {
  readonly #addedAt = new Map<string, number>();
  #added = 0;
  add(id: string): boolean {
    const at = this.#addedAt.get(id);
    if (at !== undefined && this.#added - at < 10_000) return false;
    this.#added++;
    this.#addedAt.set(id, this.#added);
    return true;
  }
}

describe('the replay memory of the event stream', () => {
  it('answers as a set of the last 10,000 ids would, through wrap-arounds and replays', () => {
    const fast = new RecentIds();
    const reference = new Reference();
    // A fixed pseudo-random walk: mostly new ids, replays from near and far back, ids that collide in few slots.
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    let fresh = 0;
    const answers: boolean[] = [];
    const expected: boolean[] = [];
    for (let step = 0; step < 40_000; step++) {
      const roll = next();
      const id =
        roll < 0.8
          ? `evt_${fresh++}`
          : `evt_${Math.max(0, fresh - 1 - Math.floor(next() * (roll < 0.9 ? 50 : 12_000)))}`;
      answers.push(fast.add(id));
      expected.push(reference.add(id));
    }
    expect(answers).toEqual(expected);
    expect(answers.filter((a) => !a).length).toBeGreaterThan(3_000);
  });

  it('forgets the oldest id once 10,000 newer ones came', () => {
    const ids = new RecentIds();
    expect(ids.add('first')).toBe(true);
    for (let k = 0; k < 9_999; k++) ids.add(`id-${k}`);
    expect(ids.add('first')).toBe(false);
    ids.add('one-more');
    expect(ids.add('first')).toBe(true);
  });
});
