import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { CLIENT_ID, CLIENT_SECRET, hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Accessible mode (--accessible, SVCADM_ACCESSIBLE=1): the README says event lines are never cut (a braille display
// pans along a line; a cut loses what it would have read). Not the type, the id or the summary, whatever their
// length and the terminal's width, in the tail of one tenant and across tenants.

const hostile = hostileServerPerTest();
const NOW = Date.parse('2025-06-05T12:00:00Z');

/** A type longer than any of the spec's (33 at most), an id of 40 characters, a name of 320. */
const LONG_TYPE = 'user.profile.attributes.synchronized.from.the.corporate.directory';
const LONG_ID = `evt_${'L'.repeat(36)}`;
const LONG_NAME = `Ada ${'Lovelace-Byron-King-'.repeat(16)}`;

function eventMessage(offset: string, type: string, id: string, time: string, object: Record<string, unknown>) {
  return sseMessage(offset, type, JSON.stringify({ offset, event: { id, type, time, data: { object } } }));
}

const STREAM = sse(
  [
    eventMessage('c1', LONG_TYPE, LONG_ID, '2025-06-05T11:00:00Z', {
      user_id: 'db|1',
      email: 'ada@example.com',
      name: LONG_NAME,
    }),
    eventMessage('c2', 'user.created', 'evt_AbCdEfGh00000002', '2025-06-05T11:00:01Z', {
      user_id: 'db|2',
      email: 'grace@example.com',
    }),
  ],
  { keepOpen: true },
);

/** stdout a terminal of 60 columns (its lines are cut outside accessible mode); stderr piped. */
const run = (argv: string[], env: Record<string, string>) =>
  runCli([...argv, 'events', 'tail', '--since', '1d', '--max-events', '2'], {
    env: { ...env, NO_COLOR: '1' },
    tty: { stdout: true, stdin: true },
    columns: 60,
    clock: new VirtualClock(NOW),
  });

describe('accessible mode: event lines are never cut', () => {
  it('the tail of one tenant: the long type, the id and the whole summary, in words', async () => {
    const server = await hostile({ api: STREAM });
    for (const how of [{ args: ['--accessible'] }, { args: [], env: { SVCADM_ACCESSIBLE: '1' } }]) {
      const r = await run(how.args, server.env(how.env));
      expect(r).toEqual({
        code: 0,
        stdout: [
          'Events of 2025-06-05 UTC (today):',
          `11:00:00  ${LONG_TYPE}  ${LONG_ID}  ada@example.com (${LONG_NAME})`,
          // The id column as wide as the 40-character id before it.
          `11:00:01  user.created                       ${'evt_AbCdEfGh00000002'.padEnd(40)}  grace@example.com`,
          '',
        ].join('\n'),
        stderr: '',
      });
    }
  });

  it('the tail across tenants: the profile, the long type, the id and the whole summary, in words', async () => {
    const server = await hostile({ api: STREAM });
    const dir = tempConfigDir();
    const profile = 'production-eu-west-billing-tenant';
    const tenant = { domain: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles: { [profile]: tenant } }), { mode: 0o600 });
    const r = await run(['--profiles', 'production-*', '--accessible'], { SVCADM_CONFIG_DIR: dir });
    // The day heading is words alone, nothing before them.
    expect(r).toEqual({
      code: 0,
      stdout: [
        'Events of 2025-06-05 UTC (today):',
        `${profile}  11:00:00  ${LONG_TYPE}  ${LONG_ID}  ada@example.com (${LONG_NAME})`,
        `${profile}  11:00:01  user.created                       ${'evt_AbCdEfGh00000002'.padEnd(40)}  grace@example.com`,
        '',
      ].join('\n'),
      stderr: '',
    });
  });
});
