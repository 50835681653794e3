import { describe, expect, it } from 'vitest';
import { eventLineFormatter, typeColumnWidth } from '../../src/render/event-line.js';

describe('event lines', () => {
  const now = Date.parse('2025-06-05T12:00:00Z');
  const row = (type: string, time: string) => ({
    time: Date.parse(time),
    type,
    id: 'evt_AbCdEfGh00000001',
    summary: 'ada@example.com (Ada Lovelace)',
  });

  it('put a UTC day heading before the first event of each day, "(today)" on today', () => {
    const format = eventLineFormatter({ color: false, typeWidth: 12, now: () => now });
    const lines = [
      format(row('user.created', '2025-06-04T23:59:59Z'), 120),
      format(row('user.created', '2025-06-05T00:00:00+00:00'), 120),
      format(row('user.deleted', '2025-06-05T01:00:00Z'), 120),
    ].join('');
    expect(lines).toBe(
      '── 2025-06-04 UTC ──\n' +
        '23:59:59  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n' +
        '── 2025-06-05 UTC (today) ──\n' +
        '00:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n' +
        '01:00:00  user.deleted  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n',
    );
  });

  it('give the type column the widest type seen so far, not the widest of every type (33 columns)', () => {
    const all = eventLineFormatter({ color: false, typeWidth: typeColumnWidth([]), now: () => now });
    expect(typeColumnWidth([])).toBe(33);
    all(row('user.created', '2025-06-05T11:00:00Z'), 80); // the day heading
    expect(all(row('user.created', '2025-06-05T11:00:00Z'), 80)).toBe(
      '11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n',
    );
    expect(all(row('connection.updated', '2025-06-05T11:00:01Z'), 100)).toBe(
      '11:00:01  connection.updated  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n',
    );
    expect(all(row('user.created', '2025-06-05T11:00:02Z'), 100)).toBe(
      '11:00:02  user.created        evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)\n',
    );
  });

  it('fit 60 columns on one line when the types asked for are short, else on two, the id never cut', () => {
    const short = eventLineFormatter({ color: false, typeWidth: typeColumnWidth(['user.created']), now: () => now });
    short(row('user.created', '2025-06-05T11:00:00Z'), 60); // the day heading
    expect(short(row('user.created', '2025-06-05T11:00:00Z'), 60)).toBe(
      '11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.…\n',
    );
    const all = eventLineFormatter({ color: false, typeWidth: typeColumnWidth([]), now: () => now });
    all(row('user.created', '2025-06-05T11:00:00Z'), 60);
    expect(all(row('organization.member.role.assigned', '2025-06-05T11:00:00Z'), 60)).toBe(
      '11:00:00  organization.member.role.assigned\n          evt_AbCdEfGh00000001  ada@example.com (Ada Lovel…\n',
    );
  });

  it('cut a type the service names longer than the column to the column, on one line or two, whatever the width', () => {
    const format = eventLineFormatter({ color: false, typeWidth: 12, now: () => now });
    const huge = `user.${'x'.repeat(100_000)}`;
    expect(format({ ...row(huge, '2025-06-05T11:00:00Z'), summary: 'ada' }, 80)).toBe(
      '── 2025-06-05 UTC (today) ──\n11:00:00  user.xxxxxx…  evt_AbCdEfGh00000001  ada\n',
    );
    expect(format({ ...row(huge, '2025-06-05T11:00:01Z'), summary: 'ada' }, Number.POSITIVE_INFINITY)).toBe(
      '11:00:01  user.xxxxxx…  evt_AbCdEfGh00000001  ada\n',
    );
    expect(format({ ...row(huge, '2025-06-05T11:00:02Z'), summary: 'ada' }, 40)).toBe(
      '11:00:02  user.xxxxxxxxxxxxxxxxxxxxxxx…\n          evt_AbCdEfGh00000001  ada\n',
    );
  });
});
