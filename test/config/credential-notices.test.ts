import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';

// Issue 29, point 1: credentials in the environment that win over the current profile are never silent.

let emu: TestEmulator;
let dir: string;

withFileEmulator((each) => ({ emu, configDir: dir } = each));

async function addReadOnlyProfile(name: string): Promise<void> {
  const c = emu.readOnly;
  const r = await runCli(
    ['profiles', 'add', name, '--domain', emu.url, '--client-id', c.clientId, '--client-secret-stdin', '--no-verify'],
    { env: { SVCADM_CONFIG_DIR: dir }, stdin: c.clientSecret },
  );
  expect(r.code, r.stderr).toBe(0);
}

describe('profiles use names the variables that will override the profile', () => {
  it('with the emulator eval exported: one warning naming each variable and how to stop it', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['profiles', 'use', 'ro'], { env: { SVCADM_CONFIG_DIR: dir, ...emu.env } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "Now using profile 'ro'.\n" +
        "svcadm: warning: SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET in the environment override profile 'ro': " +
        '`unset SVCADM_DOMAIN SVCADM_CLIENT_ID SVCADM_CLIENT_SECRET` to use it\n',
    );
  });

  it('SVCADM_PROFILE naming another profile is said too', async () => {
    await addReadOnlyProfile('ro');
    await addReadOnlyProfile('other');
    const r = await runCli(['profiles', 'use', 'ro'], { env: { SVCADM_CONFIG_DIR: dir, SVCADM_PROFILE: 'other' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "Now using profile 'ro'.\n" +
        "svcadm: warning: SVCADM_PROFILE in the environment overrides profile 'ro': `unset SVCADM_PROFILE` to use it\n",
    );
  });

  it('with -q: nothing', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['profiles', 'use', 'ro', '-q'], { env: { SVCADM_CONFIG_DIR: dir, ...emu.env } });
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('with a clean environment: only the confirmation', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['profiles', 'use', 'ro'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.stderr).toBe("Now using profile 'ro'.\n");
  });
});

describe('a command run on environment credentials while a profile is current', () => {
  it('says so once on stderr, naming the variables and the profile', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['policies', 'list', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir, ...emu.env } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      "Using SVCADM_DOMAIN, SVCADM_CLIENT_ID, SVCADM_CLIENT_SECRET from the environment over the current profile 'ro'.\n",
    );
  });

  it('says nothing with -q', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['policies', 'list', '-o', 'json', '-q'], { env: { SVCADM_CONFIG_DIR: dir, ...emu.env } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('says nothing in CI, where no profile is current', async () => {
    const r = await runCli(['policies', 'list', '-o', 'json'], {
      env: { SVCADM_CONFIG_DIR: dir, CI: 'true', ...emu.env },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('says nothing when the current profile is the one in use', async () => {
    await addReadOnlyProfile('ro');
    const r = await runCli(['policies', 'list', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
