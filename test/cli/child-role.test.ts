import { describe, expect, it } from 'vitest';
import { CHILD_ROLE_ARGUMENT, childRoleCommand, childRoleOf } from '../../src/util/child-role.js';
import { BIN, runCli } from '../helpers/run-cli.js';

// The one way svcadm runs a part of itself in a child (the keyring call, the background emulator).
describe('a child role', () => {
  it('is started from npm as node bin/svcadm.js with the internal argument first', () => {
    expect(childRoleCommand('keyring-call', ['/path/binding.js'])).toEqual({
      file: process.execPath,
      args: [BIN, '--svcadm-internal-child-role', 'keyring-call', '/path/binding.js'],
    });
  });

  it('counts only as the very first argument, and only with a role it knows', () => {
    expect(childRoleOf([CHILD_ROLE_ARGUMENT, 'background-emulator'])).toEqual({
      role: 'background-emulator',
      args: [],
    });
    expect(childRoleOf([CHILD_ROLE_ARGUMENT, 'keyring-call', 'x'])).toEqual({ role: 'keyring-call', args: ['x'] });
    expect(childRoleOf(['policies', CHILD_ROLE_ARGUMENT, 'keyring-call'])).toBeUndefined();
    expect(childRoleOf([CHILD_ROLE_ARGUMENT, 'shell'])).toBeUndefined();
  });

  it('is no option a user can give: elsewhere on the line it is an unknown option', async () => {
    const r = await runCli(['policies', 'list', CHILD_ROLE_ARGUMENT, 'keyring-call']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      "svcadm: unknown option '--svcadm-internal-child-role' — see 'svcadm policies list --help'",
    );
  });
});
