import { describe, expect, it } from 'vitest';
import type { DirectoryProvisioning } from '../../src/domain/resources.js';
import { neutralize } from '../../src/text/sanitize.js';
import { VirtualClock } from '../helpers/clock.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { SCREEN_NOW, startFixtureTenant } from '../helpers/fixture-tenant.js';
import { json, startLoopback } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

const at = () => new VirtualClock(Date.parse(SCREEN_NOW));

describe('-o wide', () => {
  it('shows every column, the wide-only ones too (SYNC GROUPS among them), and cuts nothing, whatever the width', async () => {
    const tenant = await startFixtureTenant();
    try {
      const options = { env: { SVCADM_CONFIG_DIR: tenant.configDir(), NO_COLOR: '1' }, clock: at() };
      const narrow = await runCli(['provisionings', 'list', '-o', 'wide'], {
        ...options,
        tty: { stdout: true },
        columns: 60,
      });
      const piped = await runCli(['provisionings', 'list', '-o', 'wide'], options);
      expect(narrow.code).toBe(0);
      expect(narrow.stdout).toBe(
        [
          'CONNECTION                 CONNECTION ID         STRATEGY      LAST SYNC (UTC)             STATUS                                                                     AUTO SYNC  SYNC GROUPS  MAPPINGS                    CREATED (UTC)                UPDATED (UTC)',
          'umbrella-pingfederate-012  con_0a1B2c3D4e5F6g7H  pingfederate  2025-06-02 09:30 (3d ago)   success                                                                    yes        all          email=mail, family_name=sn  2024-11-20 08:00 (197d ago)  2025-05-01 10:00 (35d ago)',
          'umbrella-pingfederate-017  con_9z8Y7x6W5v4U3t2S  pingfederate  2025-06-04 23:10 (12h ago)  failed: Directory returned 401: the provisioning credentials were revoked  no         selected     email=mail                  2024-12-01 08:00 (186d ago)  2025-05-20 16:45 (15d ago)',
          'acme-okta-003              con_Q1w2E3r4T5y6U7i8  okta          2025-06-05 11:20 (40m ago)  in_progress                                                                yes        off          email=mail                  2023-02-14 12:00 (2y ago)    2025-06-05 11:58 (1m ago)',
          '',
        ].join('\n'),
      );
      expect(narrow.stderr).toBe('Next page: svcadm -p demo -o wide provisionings list --from cp_page2\n');
      expect(piped).toEqual(narrow);
    } finally {
      await tenant.close();
    }
  });
});

describe('tables on a terminal', () => {
  it('never cut a name or an id, at any width', async () => {
    const body = await runCli(['provisionings', 'list', '--take', '20', '-o', 'json'], { env });
    const items = JSON.parse(body.stdout).directory_provisionings as DirectoryProvisioning[];
    const names = items.map((p) => neutralize(p.connection_name ?? ''));
    const width = Math.max(...names.map((n) => n.length));
    for (const columns of [60, 80, 120]) {
      const r = await runCli(['provisionings', 'list', '--take', '20'], { env, tty: { stdout: true }, columns });
      expect(r.code).toBe(0);
      const rows = r.stdout.split('\n').slice(1, -1);
      expect(rows.map((row) => row.slice(0, width + 2 + 20))).toEqual(
        items.map((p, i) => `${(names[i] ?? '').padEnd(width)}  ${p.connection_id}`),
      );
    }
  });

  it('hide columns in priority order, showing every column that fits (100 columns: STRATEGY stays)', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '12'], {
      env,
      tty: { stdout: true },
      columns: 100,
      clock: at(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(GOLDEN_100);
    expect(r.stderr.split('\n')[0]).toBe('Hidden to fit: LAST SYNC (UTC) (-o wide shows all)');
  });

  it('show a failed provisioning with its error', async () => {
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'table'], { env });
    const failed = r.stdout.split('\n').filter((line) => /\bfailed: /.test(line));
    expect(failed.length).toBeGreaterThan(10);
    for (const line of failed) {
      expect(line).toMatch(
        /failed: (Directory returned 401: the provisioning credentials were revoked|Timed out after 300 s while listing groups|Attribute "mail" missing for 3 users)$/,
      );
    }
  });
});

describe('an empty page', () => {
  async function withBody(body: unknown, run: (env: Record<string, string>) => Promise<void>): Promise<void> {
    const server = await startLoopback([json(200, body)]);
    try {
      await run({ SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 't' });
    } finally {
      await server.close();
    }
  }

  it('says so on stderr instead of an empty table', async () => {
    await withBody([], async (local) => {
      const tty = { env: local, tty: { stdout: true } };
      expect(await runCli(['users', 'permissions', 'db|x'], tty)).toEqual({
        code: 0,
        stdout: '',
        stderr: 'User db|x has no permissions.\n',
      });
      expect(await runCli(['users', 'permissions', 'db|x', '--page', '3'], tty)).toEqual({
        code: 0,
        stdout: '',
        stderr: 'No permissions on page 3.\n',
      });
      expect(await runCli(['users', 'permissions', 'db|x', '--all', '-o', 'table'], { env: local })).toEqual({
        code: 0,
        stdout: '',
        stderr: 'User db|x has no permissions.\n',
      });
      // Data formats print the data: an empty list.
      expect(await runCli(['users', 'permissions', 'db|x', '-o', 'json'], { env: local })).toEqual({
        code: 0,
        stdout: '[]\n',
        stderr: '',
      });
      expect((await runCli(['users', 'permissions', 'db|x', '-o', 'table', '-q'], { env: local })).stderr).toBe('');
    });
    await withBody({ directory_provisionings: [] }, async (local) => {
      expect(await runCli(['provisionings', 'list', '-o', 'table'], { env: local })).toEqual({
        code: 0,
        stdout: '',
        stderr: 'No directory provisionings.\n',
      });
      expect(await runCli(['provisionings', 'list', '--from', 'cp', '-o', 'table'], { env: local })).toEqual({
        code: 0,
        stdout: '',
        stderr: 'No directory provisionings after this checkpoint.\n',
      });
    });
  });
});

describe('colour', () => {
  const block = () => emu.fixtures.policyIdByAction.block;

  it('FORCE_COLOR colours a table piped to another program', async () => {
    const r = await runCli(['policies', 'get', block(), '-o', 'table'], {
      env: { ...env, NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('\x1b[1mRate limit policy\x1b[22m  \x1b[33m(Early Access endpoint)\x1b[39m');
    expect(lines[5]).toBe('\x1b[90maction           \x1b[39m  \x1b[31mblock\x1b[39m');
  });

  it('NO_COLOR wins over FORCE_COLOR', async () => {
    const r = await runCli(['policies', 'get', block()], {
      env: { ...env, NO_COLOR: '1', FORCE_COLOR: '1' },
      tty: { stdout: true },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('action             block\n');
    expect(r.stdout).not.toContain('\x1b');
  });

  it('TERM=dumb gets no escape codes: no colour, no progress line, event lines without a live view', async () => {
    const dumb = { ...env, NO_COLOR: undefined, TERM: 'dumb' };
    const table = await runCli(['provisionings', 'list', '--all'], {
      env: dumb,
      tty: { stdout: true, stderr: true },
      columns: 100,
    });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toBe(
      'CONNECTION                                   CONNECTION ID         STRATEGY      STATUS',
    );
    expect(table.stderr).toBe('Hidden to fit: LAST SYNC (UTC) (-o wide shows all)\n');
    expect(`${table.stdout}${table.stderr}`).not.toContain('\x1b');
    const tail = await runCli(['events', 'tail', '--since', '7d', '--max-events', '3'], {
      env: dumb,
      tty: { stdout: true, stderr: true },
      columns: 100,
    });
    expect(tail.code).toBe(0);
    expect(tail.stderr).toBe('');
    expect(tail.stdout).not.toContain('\x1b');
    expect(tail.stdout.split('\n').filter((l) => /^\d\d:\d\d:\d\d {2}[a-z.]+ +evt_/.test(l))).toHaveLength(3);
  });
});

/** `provisionings list --take 12` at 100 columns: LAST SYNC (27) hidden, STRATEGY (11) fits again. */
const GOLDEN_100 = [
  'CONNECTION                                   CONNECTION ID         STRATEGY     STATUS',
  'wonka-waad-001                               con_749avhlm0jk2scmn  waad         success',
  'initech-waad-002                             con_cl8lqcv3gyara67e  waad         in_progress',
  'wayne-adfs-003                               con_ww3c3iej7kmvcyp4  adfs         success',
  'acme-oidc-004                                con_jvx0uvuzmv24v8rc  oidc         success',
  'stark-okta-005                               con_j2vfv8wi95dza7ly  okta         success',
  'stark-samlp-006                              con_tqbc3pcytozvuuiu  samlp        success',
  'hooli-waad-007                               con_dc3e3wi7c2fj7kj2  waad         success',
  'corp-\\x1b[31mred\\x1b[0m-\\u202eexe.txt\\u202c  con_ff07ee3zm4gor2z3  waad         success',
  'wonka-okta-009                               con_ukns2x4lq4spt5y8  okta         success',
  'globex-google-apps-010                       con_jhezzb6filqdyg78  google-apps  success',
  'hooli-adfs-011                               con_p96w4fs0m857v7cz  adfs         success',
  'soylent-oidc-012                             con_ws3jzjx90b2nwnq3  oidc         success',
  '',
].join('\n');
