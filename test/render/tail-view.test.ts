import { describe, expect, it } from 'vitest';
import { statusLine, type TailStatus } from '../../src/render/tail-view.js';

describe('the status line of the live view', () => {
  const status: TailStatus = {
    state: 'reconnecting',
    attempt: 3,
    reconnectAt: 12_500,
    reason: 'the service closed the event stream',
    types: ['user.created'],
    seen: 1234,
    rate: 2.5,
    cursor: 'cur_0004',
    now: 10_000,
  };

  it('keeps clear of the last column: the reason is cut, what follows is whole or left out', () => {
    expect(statusLine(status, 60, false)).toBe('○ reconnecting in 3s (attempt 3): the service closed the e…');
    expect(statusLine(status, 120, false)).toBe(
      '○ reconnecting in 3s (attempt 3): the service closed the event stream · 1,234 events · 2.5/s · user.created',
    );
    expect(statusLine({ ...status, state: 'stopped', reason: 'interrupted' }, 60, false)).toBe(
      '■ stopped: interrupted · 1,234 events · user.created',
    );
  });

  it('counts what was forwarded, the event being retried and its countdown, and what was dead-lettered', () => {
    const forwarding: TailStatus = {
      ...status,
      state: 'connected',
      reason: undefined,
      forward: { forwarded: 1200, deadLettered: 3, rejected: 2, retrying: { attempt: 4, at: 12_100 } },
    };
    expect(statusLine(forwarding, 200, false)).toBe(
      '● connected · 1,234 events · 1,200 forwarded · retrying (attempt 4, next try in 3s) · 3 dead-lettered (2 rejected, 1 out of attempts) · 2.5/s · user.created · cursor cur_0004',
    );
    expect(statusLine({ ...forwarding, forward: { forwarded: 5, deadLettered: 0, rejected: 0 } }, 200, false)).toBe(
      '● connected · 1,234 events · 5 forwarded · 2.5/s · user.created · cursor cur_0004',
    );
  });
});
