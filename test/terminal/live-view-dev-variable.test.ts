import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { openTerminal, type Terminal } from '../helpers/tmux.js';

// Issue 38, point 13: `DEV=true` (common in developers' shells) is what Ink reads to reach for React's developer
// tools; the live view crashed on it ("ENOENT … dist/package.json — this is a bug in svcadm"). It runs whatever DEV
// holds (docs/decisions/2026-11-28-ink-dev-variable.md).

const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');
const tmux = requireProgram('tmux');

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

describe.skipIf(tmux.missing).each(['true', '1'])(tmux.title('events tail in a terminal with DEV=%s'), (dev) => {
  it('draws the live view, and q ends it with exit 0 and the resume line', async () => {
    const tenant = await startFixtureTenant();
    const terminal: Terminal = await openTerminal([process.execPath, CLI, 'events', 'tail', '--since', '2d'], {
      columns: 80,
      rows: 16,
      env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir(), DEV: dev },
    });
    closers.push(
      () => terminal.close(),
      () => tenant.close(),
    );
    const drawn = await terminal.waitFor((text) => text.includes('● connected · 4 events'));
    expect(drawn.split('\n').at(-1)).toBe('p pause · / filter · t type · i inspect · q quit');
    await terminal.keys('q');
    expect(await terminal.exited()).toBe(0);
    const screen = await terminal.screen();
    expect(screen).not.toContain('svcadm:');
    expect(screen.split('\n').at(-1)).toBe('resume with: svcadm -p demo events tail --from cur_0004');
  });
});
