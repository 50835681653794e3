import { describe, expect, it } from 'vitest';
import { mergedFormats } from '../../../src/events/pipeline/event-formats.js';
import { StreamEvent } from '../../../src/events/stream/subscription.js';
import { VirtualClock } from '../../helpers/clock.js';

// The merged tail's lines for people (`events tail --profiles`): a PROFILE column of at most 16 columns, so that ids
// stay whole and readable at 80 columns, and columns that line up when ids come in two lengths. The data formats
// keep every profile name whole.

const LONG = 'production-eu-west-billing-and-invoicing'; // 40 characters
const SHORT = 'dev';

function item(profile: string, type: string, id: string, time: string, object: Record<string, unknown>) {
  const line = `${JSON.stringify({ type, event: { id, time, data: { object } } })}\n`;
  return {
    event: { kind: 'event' as const, profile, event: new StreamEvent(type, 'o', [Buffer.from(line)]), position: [] },
  };
}

/** Ids of two lengths: the spec's 20 characters, and 24. */
const ITEMS = [
  item(SHORT, 'user.created', 'evt_AbCdEfGh00000001', '2025-06-05T11:00:00Z', { email: 'ada@example.com' }),
  item(LONG, 'user.created', 'evt_AbCdEfGh000000000002', '2025-06-05T11:00:01Z', { email: 'grace@example.com' }),
  item(SHORT, 'user.deleted', 'evt_AbCdEfGh00000003', '2025-06-05T11:00:02Z', { email: 'mallory@example.com' }),
  item(LONG, 'user.updated', 'evt_AbCdEfGh00000004', '2025-06-05T11:00:03Z', { email: 'bob@example.com' }),
  // The longest type: two lines at 80 columns, the profile beside the id.
  item(SHORT, 'organization.member.role.assigned', 'evt_AbCdEfGh00000005', '2025-06-05T11:00:04Z', {
    organization: { name: 'acme' },
    user: { email: 'grace@example.com' },
  }),
];

async function shown(columns: number): Promise<string> {
  const formats = mergedFormats(new VirtualClock(Date.parse('2025-06-05T12:00:00Z')), [], [SHORT, LONG]);
  const view = await formats.view();
  const format = view.lines(false);
  return ITEMS.map((i) => format(view.row(i), columns)).join('');
}

describe('the merged tail for people', () => {
  it('at 80 columns: the long profile cut to 16 in its middle, every id whole, the columns lined up', async () => {
    expect(await shown(80)).toBe(
      [
        '                  ── 2025-06-05 UTC (today) ──',
        'dev               11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com',
        'producti…voicing  11:00:01  user.created  evt_AbCdEfGh000000000002  grace@exam…',
        'dev               11:00:02  user.deleted  evt_AbCdEfGh00000003      mallory@ex…',
        'producti…voicing  11:00:03  user.updated  evt_AbCdEfGh00000004      bob@exampl…',
        '                  11:00:04  organization.member.role.assigned',
        'dev                         evt_AbCdEfGh00000005  acme · grace@example.com',
        '',
      ].join('\n'),
    );
  });

  it('at 120 columns: the same columns, the summaries whole', async () => {
    expect(await shown(120)).toBe(
      [
        '                  ── 2025-06-05 UTC (today) ──',
        'dev               11:00:00  user.created  evt_AbCdEfGh00000001  ada@example.com',
        'producti…voicing  11:00:01  user.created  evt_AbCdEfGh000000000002  grace@example.com',
        'dev               11:00:02  user.deleted  evt_AbCdEfGh00000003      mallory@example.com',
        'producti…voicing  11:00:03  user.updated  evt_AbCdEfGh00000004      bob@example.com',
        'dev               11:00:04  organization.member.role.assigned  evt_AbCdEfGh00000005      acme · grace@example.com',
        '',
      ].join('\n'),
    );
  });

  it('short names only: the column as wide as the longest', async () => {
    const formats = mergedFormats(new VirtualClock(Date.parse('2025-06-05T12:00:00Z')), [], [SHORT, 'prod-eu']);
    const view = await formats.view();
    const format = view.lines(false, false);
    expect(format(view.row(item('prod-eu', 'user.created', 'evt_1', '2025-06-05T11:00:00Z', {})), 80)).toBe(
      'prod-eu  11:00:00  user.created  evt_1\n',
    );
  });

  it('the data formats keep the profile whole', () => {
    const formats = mergedFormats(new VirtualClock(0), [], [SHORT, LONG]);
    const [, second] = ITEMS;
    expect(Buffer.concat(formats.json(second!)).toString()).toBe(
      `{"profile":"${LONG}","event":{"type":"user.created","event":{"id":"evt_AbCdEfGh000000000002","time":"2025-06-05T11:00:01Z","data":{"object":{"email":"grace@example.com"}}}}}\n`,
    );
    expect(formats.value(second!)).toEqual({
      profile: LONG,
      event: {
        type: 'user.created',
        event: {
          id: 'evt_AbCdEfGh000000000002',
          time: '2025-06-05T11:00:01Z',
          data: { object: { email: 'grace@example.com' } },
        },
      },
    });
  });
});
