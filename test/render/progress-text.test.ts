import { describe, expect, it } from 'vitest';
import { fetchedText, groupedCount } from '../../src/render/progress-text.js';

describe('the --all progress text', () => {
  it('groups thousands exactly as en-US does, without starting ICU', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 50_000, 123_456_789, Number.MAX_SAFE_INTEGER]) {
      expect(groupedCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('says what was fetched, of the total when known', () => {
    expect(fetchedText(300)).toBe('fetched 300');
    expect(fetchedText(3000, 12_345)).toBe('fetched 3,000 of 12,345');
  });
});
