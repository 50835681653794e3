import { describe, expect, it } from 'vitest';
import { streamViewKind } from '../../src/io/live-view-choice.js';

describe('which view a stream gets', () => {
  const tty = { isTTY: true };
  const base = { format: 'table' as const, redraw: true, stdin: tty, stdout: tty, env: {} };
  it('the Ink app only at a terminal a person types at, outside CI', () => {
    expect(streamViewKind(base)).toBe('interactive');
    expect(streamViewKind({ ...base, stdin: { isTTY: false } })).toBe('redraw');
    expect(streamViewKind({ ...base, env: { CI: 'true' } })).toBe('redraw');
    expect(streamViewKind({ ...base, env: { GITHUB_ACTIONS: 'true', CI_JOB_ID: '1' } })).toBe('redraw');
    expect(streamViewKind({ ...base, env: { CI: 'false' } })).toBe('interactive');
    expect(streamViewKind({ ...base, redraw: false })).toBe('lines');
    expect(streamViewKind({ ...base, format: 'wide' })).toBe('lines');
  });
});
