import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { openTerminal } from '../helpers/tmux.js';

// The interactive live view of a tail across tenants, in a pseudo-terminal (tmux): it ends as the single view does.

const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

const tmux = requireProgram('tmux');

describe.skipIf(tmux.missing)(tmux.title('events tail --profiles, the interactive view'), () => {
  it('q stops as the single view does: the stop reason, rate and cursor while events flow, how to resume', async () => {
    const [dev, prod] = [await startFixtureTenant(), await startFixtureTenant()];
    closers.push(dev.close, prod.close);
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    const profile = (url: string) => ({ domain: url, clientId: 'cli_demo', clientSecret: 's' });
    writeFileSync(
      join(dir, 'profiles.json'),
      JSON.stringify({ profiles: { dev: profile(dev.url), prod: profile(prod.url) } }),
      {
        mode: 0o600,
      },
    );
    const terminal = await openTerminal([process.execPath, CLI, '--profiles', '*', 'events', 'tail', '--since', '2d'], {
      columns: 120,
      rows: 30,
      env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: dir },
    });
    closers.push(() => terminal.close());
    const flowing = await terminal.waitFor((text) => text.includes('● connected · 8 events'), 10_000, 250);
    expect(flowing.split('\n').find((line) => line.includes('● connected'))).toMatch(
      /^● connected · 8 events · \d+\.\d\/s · all types · cursor (dev|prod)=cur_0004 *$/,
    );
    await terminal.keys('q');
    expect(await terminal.exited()).toBe(0);
    const screen = await terminal.screen();
    expect(screen).toContain('■ stopped: q pressed · 8 events · all types');
    expect(screen.trimEnd().split('\n').at(-1)).toBe(
      'resume with: svcadm --profiles dev,prod events tail --from dev=cur_0004,prod=cur_0004',
    );
  });
});
