import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureEvent, SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { openTerminal, type Terminal } from '../helpers/tmux.js';

// The interactive live view of `events tail` (Ink) in a pseudo-terminal (tmux), driven key by key at 60, 80 and 120
// columns against a loopback tenant that sends more events when told to; the clock reads SCREEN_NOW.

const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');

const MORE: readonly FixtureEvent[] = [
  ['user.deleted', '2025-06-05T11:59:40Z', { user_id: 'db|u9', email: 'mallory@example.com' }],
  ['user.created', '2025-06-05T11:59:50Z', { user_id: 'db|u7', email: 'grace@example.com', name: 'Grace' }],
];

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

/** 21 events of 21 new types: with the fixture's 4, a tail has seen 25 types. */
const TYPES_25: readonly FixtureEvent[] = Array.from({ length: 21 }, (_, k) => [
  `custom.type.${String(k + 1).padStart(2, '0')}`,
  `2025-06-05T11:59:${String(30 + k).padStart(2, '0')}Z`,
  { user_id: `db|t${k + 1}` },
]);

/** A tail in a terminal of `columns` x 16 against a fresh tenant: its screen is read as a person sees it. */
async function tail(columns: number, rows = 16) {
  const tenant = await startFixtureTenant();
  const terminal: Terminal = await openTerminal([process.execPath, CLI, 'events', 'tail', '--since', '2d'], {
    columns,
    rows,
    env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir() },
  });
  closers.push(
    () => terminal.close(),
    () => tenant.close(),
  );
  // Ink draws at most every 100 ms: a screen is read once it has stayed the same for longer than two frames.
  const show = async (ready: (text: string) => boolean) => `\n${await terminal.waitFor(ready, 10_000, 250)}\n`;
  await terminal.waitFor((text) => text.includes('● connected · 4 events'));
  return { tenant, terminal, show };
}

const footerHas = (part: string) => (text: string) => (text.split('\n').at(-1) ?? '').includes(part);

describe.each([60, 80, 120])('events tail, the interactive view at %i columns', (columns) => {
  it('p pauses the display while the stream goes on, and shows what was held on resume', async () => {
    const { tenant, terminal, show } = await tail(columns);
    await terminal.keys('p');
    await show(footerHas('paused: 0 held'));
    await tenant.send(...MORE);
    expect(await show((t) => t.includes('6 events') && footerHas('2 held')(t))).toMatchSnapshot('paused');
    await terminal.keys('p');
    expect(await show((t) => t.includes('mallory') && footerHas('p pause')(t))).toMatchSnapshot('resumed');
  });

  it('/ filters by text, Esc clears', async () => {
    const { tenant, terminal, show } = await tail(columns);
    await terminal.keys('/', 'g', 'r', 'a', 'c', 'e');
    expect(await show(footerHas('/grace'))).toMatchSnapshot('typing');
    await terminal.keys('Enter');
    expect(await show(footerHas('filter "grace"'))).toMatchSnapshot('in force');
    await tenant.send(...MORE);
    await show((t) => t.includes('6 events'));
    await terminal.keys('Escape');
    expect(await show((t) => t.includes('6 events') && !t.includes('filter "'))).toMatchSnapshot(
      'filtered, then cleared',
    );
  });

  it('t picks among the types seen so far', async () => {
    const { tenant, terminal, show } = await tail(columns);
    await terminal.keys('t');
    expect(await show(footerHas('(1/4)'))).toMatchSnapshot('picker');
    await terminal.keys('Right', 'Right', 'Right');
    await show(footerHas('(4/4)'));
    await terminal.keys('Enter');
    expect(await show(footerHas('only group.member.added'))).toMatchSnapshot('one type');
    await tenant.send(...MORE);
    expect(await show((t) => t.includes('6 events'))).toMatchSnapshot('others not shown');
  });

  it('i opens the inspector on the alternate screen; Esc returns with nothing lost', async () => {
    const { tenant, terminal, show } = await tail(columns);
    await terminal.keys('i');
    expect(await show((t) => t.includes('event 4 of 4'))).toMatchSnapshot('inspector');
    await terminal.keys('Up', 'Up');
    await show((t) => t.includes('event 2 of 4'));
    await terminal.keys('PPage');
    // The payload's top (PgUp there changes nothing): PgDn must then draw another frame, not this one.
    const top = await show((t) => t.includes('event 2 of 4') && t.includes('more lines'));
    await terminal.keys('NPage');
    expect(
      await show((t) => `\n${t}\n` !== top && t.includes('event 2 of 4') && t.includes('more lines')),
    ).toMatchSnapshot('second event, scrolled');
    await tenant.send(...MORE);
    await terminal.keys('Escape');
    expect(await show((t) => t.includes('mallory') && t.includes('6 events'))).toMatchSnapshot('back');
  });

  it('q stops like --max-events: exit 0, the last status, the count of each type, how to resume', async () => {
    const { terminal } = await tail(columns);
    await terminal.keys('q');
    expect(await terminal.exited()).toBe(0);
    expect(`\n${await terminal.screen()}\n`).toMatchSnapshot('stopped');
  });
});

describe('events tail, the interactive view on a resize', () => {
  const laidOut = (columns: number) => (text: string) =>
    text.split('\n').every((line) => line.length < columns) && text.endsWith('i inspect · q quit');
  // The events stay as they were printed (the terminal rewraps them as it does any output); only the footer is drawn
  // again, for the new width (docs/decisions/2026-11-28-live-view-resize-scrollback.md).
  const FOOTER_60 = '● connected · 4 events · 0.0/s · all types\np pause · / filter · t type · i inspect · q quit';
  const footerAt60 = (text: string) => text.endsWith(FOOTER_60) && !text.includes('cursor cur_0004');

  it('shrinking leaves no piece of the wider footer behind', async () => {
    const { terminal, show } = await tail(120);
    await terminal.resize(60, 16);
    expect(await show(footerAt60)).toMatchSnapshot('120 to 60');
  });

  it('growing draws the footer for the new width, the events as they were printed', async () => {
    const { terminal, show } = await tail(60);
    await terminal.resize(120, 16);
    expect(
      await show((t) => t.includes('          evt_AbCdEfGh00000004  billing') && t.includes('cursor cur_0004')),
    ).toMatchSnapshot('60 to 120');
  });

  it('a resize in the inspector draws it for the new size, and the live view after it', async () => {
    const { terminal, show } = await tail(120);
    await terminal.keys('i');
    await show((t) => t.includes('event 4 of 4'));
    await terminal.resize(60, 16);
    // tmux clips the old frame to the new width at once: wait for the inspector's own cut (…) at 60 columns.
    const redrawn = (t: string) => t.includes('event 4 of 4') && t.includes('(Ada L');
    expect(await show((t) => redrawn(t) && laidOut(61)(`${t}\ni inspect · q quit`))).toMatchSnapshot('inspector at 60');
    await terminal.keys('Escape');
    expect(await show(footerAt60)).toMatchSnapshot('back at 60');
  });
});

describe('events tail, the interactive view never erases what the user saw', () => {
  /**
   * Every event's id line once (after a resize too: lines are never written again), each count line, then the resume
   * line on a line of its own, in the pane's history.
   */
  const kept = (history: string) => {
    const lines = history.split('\n');
    for (let n = 1; n <= 25; n++) {
      const shown = lines.filter((l) => l.includes(`evt_AbCdEfGh${String(n).padStart(8, '0')}`)).length;
      expect(shown).toBe(1);
    }
    const counts = lines.filter((l) => /^ {2}1 {2}\S/.test(l));
    expect(counts).toHaveLength(25);
    expect(lines.filter((l) => l.startsWith('■ stopped: q pressed · 25 events'))).toHaveLength(1);
    expect(lines.at(-1)).toBe('resume with: svcadm -p demo events tail --from cur_0025');
  };

  it.each([
    [80, 24],
    [100, 6],
  ])(
    'q at %i x %i after 25 types: every line printed before is still in the history, the counts below it',
    async (columns, rows) => {
      const { tenant, terminal, show } = await tail(columns, rows);
      await tenant.send(...TYPES_25);
      await show((t) => t.includes('25 events'));
      await terminal.keys('q');
      expect(await terminal.exited()).toBe(0);
      kept(await terminal.history());
    },
  );

  it.each([4, 2])('a resize to %i rows, then q: nothing lost either', async (rows) => {
    const { tenant, terminal, show } = await tail(80, 24);
    await tenant.send(...TYPES_25);
    await show((t) => t.includes('25 events'));
    await terminal.resize(80, rows);
    await show((t) => t.includes('25 events'));
    await terminal.keys('q');
    expect(await terminal.exited()).toBe(0);
    kept(await terminal.history());
  });
});
