import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { openTerminal } from '../helpers/tmux.js';

// Accessible mode in a real pseudo-terminal (tmux): what a screen reader or a braille display is given to read.

const tmux = requireProgram('tmux');
const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');

let tenant: Awaited<ReturnType<typeof startFixtureTenant>>;
beforeAll(async () => {
  tenant = await startFixtureTenant();
});
afterAll(async () => {
  await tenant?.close();
});

describe.skipIf(tmux.missing)(tmux.title('accessible mode'), () => {
  it('events tail: no live view and no redraw, plain lines that stay, the status in words, Ctrl-C as usual', async () => {
    const terminal = await openTerminal([process.execPath, CLI, 'events', 'tail', '--since', '2d'], {
      columns: 140,
      rows: 20,
      env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir(), SVCADM_ACCESSIBLE: '1' },
    });
    try {
      // The status is said when it changes (connected), then at most every 30 s: not after each event.
      const live = await terminal.waitFor((text) => text.includes('11:59:30'), 10_000, 300);
      expect(`\n${live}\n`).toBe(`
connected, 0 events, 0.0/s, all types, cursor -
Events of 2025-06-04 UTC:
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)
23:40:12  organization.member.role.assigned  evt_AbCdEfGh00000002  acme, grace@example.com, Order Manager
Events of 2025-06-05 UTC (today):
08:02:44  connection.updated                 evt_AbCdEfGh00000003  Corporate-OIDC (oidc)
11:59:30  group.member.added                 evt_AbCdEfGh00000004  billing, db|u3
`);
      await terminal.keys('C-c');
      expect(await terminal.exited()).toBe(130);
      const stopped = await terminal.screen();
      expect(stopped.startsWith(live)).toBe(true);
      // `^C` is the terminal's own echo of the key: nothing takes the keyboard from it.
      expect(stopped.slice(live.length)).toBe(`
^Cstopped: interrupted, 4 events, all types, cursor cur_0004
svcadm: interrupted after 4 events
resume with: svcadm -p demo events tail --from cur_0004`);
    } finally {
      await terminal.close();
    }
  });

  it('a list: a row a line, each value named, wrapped by a 60-column terminal, never cut or hidden', async () => {
    const terminal = await openTerminal([process.execPath, CLI, 'provisionings', 'list', '--accessible'], {
      columns: 60,
      rows: 30,
      env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir() },
    });
    try {
      expect(await terminal.exited()).toBe(0);
      const text = await terminal.screen();
      // Wrapped by the terminal, never cut by svcadm.
      const row =
        'connection: umbrella-pingfederate-017, connection id: con_9z8Y7x6W5v4U3t2S, strategy: pingfederate, last sync (utc): 2025-06-04 23:10 (12h ago), status: failed: Directory returned 401: the provisioning credentials were revoked';
      expect(text.replace(/\s/g, '')).toContain(row.replace(/\s/g, ''));
      expect(text).not.toContain('…');
      expect(text).not.toContain('Hidden to fit');
    } finally {
      await terminal.close();
    }
  });
});
