import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { SCREEN_NOW } from '../helpers/fixture-tenant.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;
withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

/** A person at a terminal: every stream a terminal. */
const terminal = { stdout: true, stderr: true, stdin: true };
const ESCAPE_OR_REDRAW = /[\x1b\r]/;

describe('accessible mode (--accessible, SVCADM_ACCESSIBLE)', () => {
  it('tails as plain lines: no live view, the status said in words on stderr when it changes, nothing cut', async () => {
    for (const how of [
      { args: ['--accessible'], env },
      { args: [], env: { ...env, SVCADM_ACCESSIBLE: '1' } },
    ]) {
      const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '3', ...how.args], {
        env: how.env,
        tty: terminal,
        columns: 60,
      });
      expect(r.code).toBe(0);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(ESCAPE_OR_REDRAW);
      const lines = r.stdout.split('\n');
      expect(lines[0]).toMatch(/^Events of \d{4}-\d\d-\d\d UTC( \(today\))?:$/);
      expect(lines.slice(1, 4).every((line) => /^\d\d:\d\d:\d\d {2}[a-z.]+ +evt_\w+ {2}\S/.test(line))).toBe(true);
      // Not cut to the 60 columns: a braille display pans along the line.
      expect(r.stdout).not.toContain('…');
      expect(r.stdout).not.toContain(' · ');
      expect(r.stderr).toMatch(
        /^connected, 0 events, 0\.0\/s, all types, cursor -\nstopped: reached --max-events, 3 events, all types, cursor \S+\n$/,
      );
    }
  });

  it('says progress as whole lines, the first at once and then at most every 5 s, never redrawn', async () => {
    const r = await runCli(['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'json', '--accessible'], {
      env,
      tty: { stderr: true },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('fetched 50 of 1,200\n');
    expect(JSON.parse(r.stdout)).toHaveLength(1200);
  });

  it('shows a list a row a line, each value named, nothing cut or hidden, - said as none', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '2', '--accessible', '-q'], {
      env,
      tty: terminal,
      columns: 60,
      clock: new VirtualClock(Date.parse(SCREEN_NOW)),
    });
    expect(r).toEqual({
      code: 0,
      stdout: [
        'connection: wonka-waad-001, connection id: con_749avhlm0jk2scmn, strategy: waad, last sync (utc): 2024-11-03 12:56 (213d ago), status: success',
        'connection: initech-waad-002, connection id: con_cl8lqcv3gyara67e, strategy: waad, last sync (utc): 2025-02-25 15:30 (99d ago), status: in_progress',
        '',
      ].join('\n'),
      stderr: '',
    });
    const bare = await runCli(['provisionings', 'list', '--take', '1', '--accessible', '--no-headers', '-q'], {
      env,
      tty: terminal,
      clock: new VirtualClock(Date.parse(SCREEN_NOW)),
    });
    expect(bare.stdout).toBe('wonka-waad-001, con_749avhlm0jk2scmn, waad, 2024-11-03 12:56 (213d ago), success\n');
  });

  it('asks a confirmation as a plain question in words', async () => {
    const db = emu.fixtures.databaseConnectionId;
    const r = await runCli(['connections', 'delete-user', db, '--email', 'bob+ci@example.com', '--accessible'], {
      env,
      tty: terminal,
      stdin: 'yes\n',
    });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^Delete bob\\+ci@example\\.com from connection ${db} on 127\\.0\\.0\\.1:\\d+\\? Type yes to confirm, or press Enter to cancel: `,
      ),
    );
    expect(r.stderr).not.toContain('[y/N]');
  });

  it('is shown by auth status, with what turned it on, and documented by commands --json', async () => {
    const off = await runCli(['auth', 'status', '-o', 'json'], { env });
    expect(JSON.parse(off.stdout).accessible_mode).toEqual({ on: false, source: null });
    const byVariable = await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, SVCADM_ACCESSIBLE: '1' } });
    expect(JSON.parse(byVariable.stdout).accessible_mode).toEqual({ on: true, source: 'SVCADM_ACCESSIBLE' });
    const byFlag = await runCli(['auth', 'status', '--accessible'], { env, tty: terminal });
    expect(byFlag.stdout).toContain('\naccessible mode  on (--accessible)\n');
    for (const value of ['0', 'false', '']) {
      const r = await runCli(['auth', 'status', '-o', 'json'], { env: { ...env, SVCADM_ACCESSIBLE: value } });
      expect(JSON.parse(r.stdout).accessible_mode.on).toBe(false);
    }
    const catalog = JSON.parse((await runCli(['commands', '--json'])).stdout);
    expect(catalog.global_options.find((o: { flags: string }) => o.flags === '--accessible')).toMatchObject({
      env: 'SVCADM_ACCESSIBLE',
      description: 'for screen readers: no live view or redraws, plain progress and status lines, questions in words',
    });
  });
});
