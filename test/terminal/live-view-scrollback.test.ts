import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureEvent, SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { openTerminal, type Terminal } from '../helpers/tmux.js';

// The scrollback that `events tail`'s live views leave behind a resize, read whole in a real pseudo-terminal (tmux):
// the interactive view (Ink, stdin a terminal) and the redrawn view (stdin not a terminal). A resize, then a storm
// of them, with the screen full of events: every event line is in the pane's history and screen exactly once, no
// piece of a live status line or key hint is left behind, and nothing printed before is erased.

const tmux = requireProgram('tmux');
const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');

/** `count` events after the fixture's 4, the n-th at 11:59:n. */
function users(from: number, count: number): FixtureEvent[] {
  return Array.from({ length: count }, (_, k) => {
    const n = from + k;
    return ['user.created', `2025-06-05T11:59:${String(n).padStart(2, '0')}Z`, { user_id: `db|t${n}` }];
  });
}

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

const VIEWS = {
  // stdin a terminal: the Ink view with its key hints.
  interactive: (argv: string[]) => argv,
  // stdin not a terminal: the status line redrawn in place, no keys.
  redrawn: (argv: string[]) => ['sh', '-c', 'exec "$@" < /dev/null', 'sh', ...argv],
};

/** A resize storm: sizes one after the other, without waiting (the test then goes back to the first size). */
const STORM: ReadonlyArray<readonly [number, number]> = [
  [60, 20],
  [120, 30],
  [50, 12],
  [100, 24],
  [45, 9],
];

/** The last event's line and the last status line, at 80 and 40 columns. */
const LAST_EVENT: Record<number, string> = {
  80: '11:59:45  user.created                       evt_AbCdEfGh00000045  db|t45',
  40: '          evt_AbCdEfGh00000045  db|t45',
};
const STOPPED: Record<number, string> = {
  80: '■ stopped: reached --max-events · 45 events · all types · cursor cur_0045',
  40: '■ stopped: reached --max-events',
};
const COUNTS = [
  '  42  user.created',
  '   1  connection.updated',
  '   1  group.member.added',
  '   1  organization.member.role.assigned',
];

describe.skipIf(tmux.missing)(tmux.title('events tail: the live views through resizes'), () => {
  describe.each(Object.keys(VIEWS) as Array<keyof typeof VIEWS>)('the %s view', (view) => {
    it.each([
      [80, 24],
      [40, 10],
    ])('at %i x %i: one resize, then a storm; every event line once, nothing erased', async (columns, rows) => {
      const tenant = await startFixtureTenant();
      const argv = [process.execPath, CLI, 'events', 'tail', '--since', '2d', '--max-events', '45'];
      const terminal: Terminal = await openTerminal(VIEWS[view](argv), {
        columns,
        rows,
        env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir() },
      });
      closers.push(
        () => terminal.close(),
        () => tenant.close(),
      );
      const settled = (ready: (text: string) => boolean) => terminal.waitFor(ready, 10_000, 300);
      await settled((text) => text.includes('4 events'));
      // More than a screenful: the first events have scrolled into the history before any resize.
      await tenant.send(...users(5, 36));
      await settled((text) => text.includes('40 events'));
      await terminal.resize(columns, rows - 1);
      await settled((text) => text.includes('40 events'));
      for (const [c, r] of STORM) await terminal.resize(c, r);
      await terminal.resize(columns, rows);
      await settled((text) => text.includes('40 events'));
      await tenant.send(...users(41, 5));
      expect(await terminal.exited()).toBe(0);

      const lines = (await terminal.history()).split('\n');
      const times = (n: number) => lines.filter((l) => l.includes(`evt_AbCdEfGh${String(n).padStart(8, '0')}`)).length;
      expect(Array.from({ length: 45 }, (_, k) => [k + 1, times(k + 1)])).toEqual(
        Array.from({ length: 45 }, (_, k) => [k + 1, 1]),
      );
      // Of the live status line and the key hints, nothing is left: only the last status line, once, after the last
      // event (and, in the interactive view, the count of each type).
      expect(lines.filter((l) => /^[●○■] /.test(l) || l.startsWith('p pause'))).toEqual([STOPPED[columns]]);
      const end = view === 'interactive' ? COUNTS : [];
      expect(lines.slice(-end.length - 2)).toEqual([LAST_EVENT[columns], STOPPED[columns], ...end]);
    });
  });
});
