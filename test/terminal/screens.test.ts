import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { openTerminal, type Terminal } from '../helpers/tmux.js';

// Screens of svcadm in a pseudo-terminal (tmux) at 60, 80 and 120 columns, against a loopback tenant serving fixed
// data, with the clock at SCREEN_NOW. The expected screens are written out here, as a person reads them.

const tmux = requireProgram('tmux');
const CLI = join(import.meta.dirname, '..', 'helpers', 'fixed-time-cli.js');

let tenant: Awaited<ReturnType<typeof startFixtureTenant>>;
beforeAll(async () => {
  tenant = await startFixtureTenant();
});
afterAll(async () => {
  await tenant?.close();
});

/** The screen `text` framed by newlines, as the literals below are written. */
const screen = (text: string) => `\n${text}\n`;

async function open(args: string[], columns: number, rows = 50, env: Record<string, string> = {}): Promise<Terminal> {
  return openTerminal([process.execPath, CLI, ...args], {
    columns,
    rows,
    env: { SVCADM_TEST_NOW: SCREEN_NOW, SVCADM_CONFIG_DIR: tenant.configDir(), ...env },
  });
}

/** Runs a one-shot command to its end: its exit code and last screen. */
async function shot(args: string[], columns: number, rows?: number): Promise<{ code: number; screen: string }> {
  const terminal = await open(args, columns, rows);
  try {
    const code = await terminal.exited();
    return { code, screen: screen(await terminal.screen()) };
  } finally {
    await terminal.close();
  }
}

describe.skipIf(tmux.missing)(tmux.title('provisionings list'), () => {
  // Names that differ only at the end and ids stay whole; the status with its error is cut, then columns hidden;
  // a column hidden first comes back when it fits once a wider one has gone (STRATEGY at 80).
  it('at 60 columns', async () => {
    expect(await shot(['provisionings', 'list'], 60)).toEqual({
      code: 0,
      screen: `
CONNECTION                 CONNECTION ID         STATUS
umbrella-pingfederate-012  con_0a1B2c3D4e5F6g7H  success
umbrella-pingfederate-017  con_9z8Y7x6W5v4U3t2S  failed: Di…
acme-okta-003              con_Q1w2E3r4T5y6U7i8  in_progress
Hidden to fit: STRATEGY, LAST SYNC (UTC) (-o wide shows all)
Next page: svcadm -p demo provisionings list --from cp_page2
`,
    });
  });

  it('at 80 columns', async () => {
    expect(await shot(['provisionings', 'list'], 80)).toEqual({
      code: 0,
      screen: `
CONNECTION                 CONNECTION ID         STRATEGY      STATUS
umbrella-pingfederate-012  con_0a1B2c3D4e5F6g7H  pingfederate  success
umbrella-pingfederate-017  con_9z8Y7x6W5v4U3t2S  pingfederate  failed: Director…
acme-okta-003              con_Q1w2E3r4T5y6U7i8  okta          in_progress
Hidden to fit: LAST SYNC (UTC) (-o wide shows all)
Next page: svcadm -p demo provisionings list --from cp_page2
`,
    });
  });

  it('at 120 columns', async () => {
    expect(await shot(['provisionings', 'list'], 120)).toEqual({
      code: 0,
      screen: `
CONNECTION                 CONNECTION ID         STRATEGY      LAST SYNC (UTC)             STATUS
umbrella-pingfederate-012  con_0a1B2c3D4e5F6g7H  pingfederate  2025-06-02 09:30 (3d ago)   success
umbrella-pingfederate-017  con_9z8Y7x6W5v4U3t2S  pingfederate  2025-06-04 23:10 (12h ago)  failed: Directory returned 4…
acme-okta-003              con_Q1w2E3r4T5y6U7i8  okta          2025-06-05 11:20 (40m ago)  in_progress
Next page: svcadm -p demo provisionings list --from cp_page2
`,
    });
  });
});

describe.skipIf(tmux.missing)(tmux.title('users permissions'), () => {
  // A permission is told apart by its name and its API identifier: never cut; the description is cut first.
  it('at 60 columns', async () => {
    expect(await shot(['users', 'permissions', 'db|u1'], 60)).toEqual({
      code: 0,
      screen: `
PERMISSION    IDENTIFIER                         DESCRIPTION
read:orders   https://orders.example.com/api     Read every…
read:orders   https://legacy.example.com/orders  Read order…
write:orders  https://orders.example.com/api     Create and…
Hidden to fit: API, SOURCE (-o wide shows all)
`,
    });
  });

  it('at 80 columns', async () => {
    expect(await shot(['users', 'permissions', 'db|u1'], 80)).toEqual({
      code: 0,
      screen: `
PERMISSION    IDENTIFIER                         SOURCE
read:orders   https://orders.example.com/api     direct
read:orders   https://legacy.example.com/orders  role Order Manager
write:orders  https://orders.example.com/api     direct, role Order Manager
Hidden to fit: API, DESCRIPTION (-o wide shows all)
`,
    });
  });

  it('at 120 columns', async () => {
    expect(await shot(['users', 'permissions', 'db|u1'], 120)).toEqual({
      code: 0,
      screen: `
PERMISSION    API            IDENTIFIER                         SOURCE                      DESCRIPTION
read:orders   Orders API     https://orders.example.com/api     direct                      Read every order of the ten…
read:orders   Legacy Orders  https://legacy.example.com/orders  role Order Manager          Read orders of the old shop
write:orders  Orders API     https://orders.example.com/api     direct, role Order Manager  Create and change orders
`,
    });
  });
});

describe.skipIf(tmux.missing)(tmux.title('help of a command'), () => {
  // Its own options and examples, one line for the global options, no word broken; examples go on with \\.
  it('at 60 columns', async () => {
    // 60 rows: the whole page, taller than 50 at this width, is on the screen.
    expect(await shot(['users', 'permissions', '--help'], 60, 60)).toEqual({
      code: 0,
      screen: `
Usage: svcadm users permissions [options] <user-id>

list the permissions of a user, direct and from directly
assigned roles (GET /users/{id}/permissions)

Arguments:
  user-id            id of the user, e.g. auth0|64b…

Options:
  --page <n>         page index, 0 or more (first page is 0)
  --per-page <n>     results per page, 1 to 100 (--all uses
                     100)
  --include-totals   return the page inside an object with
                     the total count (json)
  --all              fetch every page and print every
                     permission once, in order (not with
                     --page)
  --concurrency <n>  pages fetched at once with --all, 1 to
                     16 (default 8; fewer while the rate
                     limit runs low)
  -h, --help         show help

Global options (svcadm --help): -p, --domain, -o, --query, …

Examples:
  $ svcadm users permissions 'db|64b0c1…'
  $ svcadm users permissions 'db|64b0c1…' --page 1 \\
      --per-page 50 --include-totals -o json
  $ svcadm users permissions 'db|64b0c1…' --all -o ndjson \\
      | jq -r .permission_name

Environment:
  SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID,
  SVCADM_CLIENT_SECRET, SVCADM_CLIENT_ASSERTION_KEY,
  SVCADM_CLIENT_ASSERTION_ALG, SVCADM_TOKEN,
  SVCADM_AUTH_URL, SVCADM_AUDIENCE   stand in for the flags
                                     of the same name
  SVCADM_PROFILES                    stands in for
                                     --profiles
  SVCADM_CONFIG_DIR                  folder of the profile
                                     store and token cache
  NO_COLOR, FORCE_COLOR, TERM, CI    colour and progress
                                     lines (TERM=dumb:
                                     neither; CI: no
                                     progress)
  SVCADM_AGENT                       agent mode: 1 on, 0 off
                                     (see the README)
  SVCADM_ACCESSIBLE                  accessible mode: 1 on
                                     (same as --accessible)
`,
    });
  });

  it('at 80 columns', async () => {
    expect(await shot(['users', 'permissions', '--help'], 80)).toEqual({
      code: 0,
      screen: `
Usage: svcadm users permissions [options] <user-id>

list the permissions of a user, direct and from directly assigned roles (GET
/users/{id}/permissions)

Arguments:
  user-id            id of the user, e.g. auth0|64b…

Options:
  --page <n>         page index, 0 or more (first page is 0)
  --per-page <n>     results per page, 1 to 100 (--all uses 100)
  --include-totals   return the page inside an object with the total count
                     (json)
  --all              fetch every page and print every permission once, in order
                     (not with --page)
  --concurrency <n>  pages fetched at once with --all, 1 to 16 (default 8; fewer
                     while the rate limit runs low)
  -h, --help         show help

Global options (svcadm --help): -p, --domain, -o, --query, …

Examples:
  $ svcadm users permissions 'db|64b0c1…'
  $ svcadm users permissions 'db|64b0c1…' --page 1 --per-page 50 \\
      --include-totals -o json
  $ svcadm users permissions 'db|64b0c1…' --all -o ndjson | jq -r \\
      .permission_name

Environment:
  SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID,
  SVCADM_CLIENT_SECRET, SVCADM_CLIENT_ASSERTION_KEY,
  SVCADM_CLIENT_ASSERTION_ALG, SVCADM_TOKEN,
  SVCADM_AUTH_URL, SVCADM_AUDIENCE   stand in for the flags of the same name
  SVCADM_PROFILES                    stands in for --profiles
  SVCADM_CONFIG_DIR                  folder of the profile store and token cache
  NO_COLOR, FORCE_COLOR, TERM, CI    colour and progress lines (TERM=dumb:
                                     neither; CI: no progress)
  SVCADM_AGENT                       agent mode: 1 on, 0 off (see the README)
  SVCADM_ACCESSIBLE                  accessible mode: 1 on (same as
                                     --accessible)
`,
    });
  });

  it('at 120 columns', async () => {
    expect(await shot(['users', 'permissions', '--help'], 120)).toEqual({
      code: 0,
      screen: `
Usage: svcadm users permissions [options] <user-id>

list the permissions of a user, direct and from directly assigned roles (GET /users/{id}/permissions)

Arguments:
  user-id            id of the user, e.g. auth0|64b…

Options:
  --page <n>         page index, 0 or more (first page is 0)
  --per-page <n>     results per page, 1 to 100 (--all uses 100)
  --include-totals   return the page inside an object with the total count (json)
  --all              fetch every page and print every permission once, in order (not with --page)
  --concurrency <n>  pages fetched at once with --all, 1 to 16 (default 8; fewer while the rate limit runs low)
  -h, --help         show help

Global options (svcadm --help): -p, --domain, -o, --query, …

Examples:
  $ svcadm users permissions 'db|64b0c1…'
  $ svcadm users permissions 'db|64b0c1…' --page 1 --per-page 50 --include-totals -o json
  $ svcadm users permissions 'db|64b0c1…' --all -o ndjson | jq -r .permission_name

Environment:
  SVCADM_PROFILE, SVCADM_DOMAIN, SVCADM_CLIENT_ID,
  SVCADM_CLIENT_SECRET, SVCADM_CLIENT_ASSERTION_KEY,
  SVCADM_CLIENT_ASSERTION_ALG, SVCADM_TOKEN,
  SVCADM_AUTH_URL, SVCADM_AUDIENCE   stand in for the flags of the same name
  SVCADM_PROFILES                    stands in for --profiles
  SVCADM_CONFIG_DIR                  folder of the profile store and token cache
  NO_COLOR, FORCE_COLOR, TERM, CI    colour and progress lines (TERM=dumb: neither; CI: no progress)
  SVCADM_AGENT                       agent mode: 1 on, 0 off (see the README)
  SVCADM_ACCESSIBLE                  accessible mode: 1 on (same as --accessible)
`,
    });
  });
});

describe.skipIf(tmux.missing)(tmux.title('events tail: the live view'), () => {
  // The interactive view (Ink, issue 21): under the status line a line of key hints, and on a stop the count of each
  // event type; its keys are tested in live-view.test.ts.
  const connected = (text: string) => text.includes('● connected · 4 events');

  /** Runs the tail until the history is on screen, then Ctrl-C: both screens and the exit code. */
  async function tail(columns: number): Promise<{ live: string; stopped: string; code: number }> {
    const terminal = await open(['events', 'tail', '--since', '2d'], columns, 14);
    try {
      const live = screen(await terminal.waitFor(connected));
      await terminal.keys('C-c');
      const code = await terminal.exited();
      return { live, stopped: screen(await terminal.screen()), code };
    } finally {
      await terminal.close();
    }
  }

  // 14 rows: the count of each type has pushed the first lines up into the scrollback.
  const STOPPED_60 = `
          evt_AbCdEfGh00000002  acme · grace@example.com ·…
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated
          evt_AbCdEfGh00000003  Corporate-OIDC (oidc)
11:59:30  group.member.added
          evt_AbCdEfGh00000004  billing · db|u3
■ stopped: interrupted · 4 events · all types
  1  connection.updated
  1  group.member.added
  1  organization.member.role.assigned
  1  user.created
svcadm: interrupted after 4 events
resume with: svcadm -p demo events tail --from cur_0004
`;

  it('at 60 columns: two lines an event, ids whole, the date of events not from today', async () => {
    expect(await tail(60)).toEqual({
      live: `
── 2025-06-04 UTC ──
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.…
23:40:12  organization.member.role.assigned
          evt_AbCdEfGh00000002  acme · grace@example.com ·…
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated
          evt_AbCdEfGh00000003  Corporate-OIDC (oidc)
11:59:30  group.member.added
          evt_AbCdEfGh00000004  billing · db|u3
● connected · 4 events · 0.0/s · all types
p pause · / filter · t type · i inspect · q quit
`,
      stopped: STOPPED_60,
      code: 130,
    });
  });

  it('at 80 columns: one line an event, the summary cut', async () => {
    expect(await tail(80)).toEqual({
      live: `
── 2025-06-04 UTC ──
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)
23:40:12  organization.member.role.assigned  evt_AbCdEfGh00000002  acme · grac…
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh00000003  Corporate-O…
11:59:30  group.member.added                 evt_AbCdEfGh00000004  billing · d…
● connected · 4 events · 0.0/s · all types · cursor cur_0004
p pause · / filter · t type · i inspect · q quit
`,
      stopped: `
── 2025-06-04 UTC ──
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)
23:40:12  organization.member.role.assigned  evt_AbCdEfGh00000002  acme · grac…
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh00000003  Corporate-O…
11:59:30  group.member.added                 evt_AbCdEfGh00000004  billing · d…
■ stopped: interrupted · 4 events · all types · cursor cur_0004
  1  connection.updated
  1  group.member.added
  1  organization.member.role.assigned
  1  user.created
svcadm: interrupted after 4 events
resume with: svcadm -p demo events tail --from cur_0004
`,
      code: 130,
    });
  });

  it('at 120 columns', async () => {
    expect(await tail(120)).toEqual({
      live: `
── 2025-06-04 UTC ──
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)
23:40:12  organization.member.role.assigned  evt_AbCdEfGh00000002  acme · grace@example.com · Order Manager
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh00000003  Corporate-OIDC (oidc)
11:59:30  group.member.added                 evt_AbCdEfGh00000004  billing · db|u3
● connected · 4 events · 0.0/s · all types · cursor cur_0004
p pause · / filter · t type · i inspect · q quit
`,
      stopped: `
── 2025-06-04 UTC ──
22:58:01  user.created  evt_AbCdEfGh00000001  ada@example.com (Ada Lovelace)
23:40:12  organization.member.role.assigned  evt_AbCdEfGh00000002  acme · grace@example.com · Order Manager
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh00000003  Corporate-OIDC (oidc)
11:59:30  group.member.added                 evt_AbCdEfGh00000004  billing · db|u3
■ stopped: interrupted · 4 events · all types · cursor cur_0004
  1  connection.updated
  1  group.member.added
  1  organization.member.role.assigned
  1  user.created
svcadm: interrupted after 4 events
resume with: svcadm -p demo events tail --from cur_0004
`,
      code: 130,
    });
  });

  it('redraws the status line for the new width when the terminal shrinks, with no piece of the old one left', async () => {
    const terminal = await open(['events', 'tail', '--since', '2d'], 120, 14);
    try {
      await terminal.waitFor(connected);
      await terminal.resize(60, 14);
      const resized = await terminal.waitFor((text) =>
        text.endsWith(
          `● connected · 4 events · 0.0/s · all types\n${'p pause · / filter · t type · i inspect · q quit'}`,
        ),
      );
      // The events as they were printed, rewrapped by the terminal (tmux keeps the cursor's row: the first lines went
      // up into the scrollback); each once (docs/decisions/2026-11-28-live-view-resize-scrollback.md).
      expect(screen(resized)).toBe(`
00002  acme · grace@example.com · Order Manager
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh000
00003  Corporate-OIDC (oidc)
11:59:30  group.member.added                 evt_AbCdEfGh000
00004  billing · db|u3
● connected · 4 events · 0.0/s · all types
p pause · / filter · t type · i inspect · q quit
`);
      await terminal.keys('C-c');
      expect(await terminal.exited()).toBe(130);
      expect(screen(await terminal.screen())).toBe(`
00002  acme · grace@example.com · Order Manager
── 2025-06-05 UTC (today) ──
08:02:44  connection.updated                 evt_AbCdEfGh000
00003  Corporate-OIDC (oidc)
11:59:30  group.member.added                 evt_AbCdEfGh000
00004  billing · db|u3
■ stopped: interrupted · 4 events · all types
  1  connection.updated
  1  group.member.added
  1  organization.member.role.assigned
  1  user.created
svcadm: interrupted after 4 events
resume with: svcadm -p demo events tail --from cur_0004
`);
    } finally {
      await terminal.close();
    }
  });
});
