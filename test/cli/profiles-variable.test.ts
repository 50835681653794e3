import { describe, expect, it } from 'vitest';
import { answerJson, hostileServerPerTest } from '../helpers/hostile-server.js';
import { configWithProfiles, runBin, runCli } from '../helpers/run-cli.js';

// Issue 38, point 8: SVCADM_PROFILES is ignored by the commands that talk to no tenant, parsed by those that take
// --profiles, and still refused by the commands of one tenant (cli.md, "Many tenants", round 5). An invalid one
// (a trailing comma, a space) used to make every command exit 2.

const hostile = hostileServerPerTest();
const INVALID: readonly (readonly [string, string])[] = [
  ['prod-*,', "svcadm: SVCADM_PROFILES needs profile names or patterns separated by commas, got 'prod-*,'\n"],
  ['prod a', "svcadm: invalid profile pattern 'prod a': use letters, digits, '-', '_', '*' and '?'\n"],
];

async function tenantEnv(variable: string) {
  const server = await hostile({ api: answerJson(200, { id: 'rlp_1' }) });
  const dir = configWithProfiles({ dev: { domain: server.url, clientId: 'c', clientSecret: 's' } });
  return { server, env: { SVCADM_CONFIG_DIR: dir, SVCADM_PROFILES: variable } };
}

describe.each(INVALID)('SVCADM_PROFILES=%j', (variable, refusal) => {
  it.each([
    [['completion', 'bash'], false],
    [['profiles', 'list', '-o', 'json'], true],
    [['commands', '--json'], false],
    [['emulator', '--help'], false],
  ])('%j talks to no tenant: it ignores the variable, exit 0, no refusal', async (argv, namesFolder) => {
    const { server, env } = await tenantEnv(variable);
    const r = await runCli(argv, { env });
    const stderr = namesFolder ? `Config folder: ${env.SVCADM_CONFIG_DIR}\n` : '';
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr });
    expect(r.stdout).not.toBe('');
    expect(server.requests).toEqual([]);
  });

  it('a command that takes --profiles parses it: exit 2, the variable named, nothing sent', async () => {
    const { server, env } = await tenantEnv(variable);
    expect(await runCli(['policies', 'list'], { env })).toEqual({ code: 2, stdout: '', stderr: refusal });
    expect(server.requests).toEqual([]);
  });

  it('a command of one tenant still refuses it, as before: exit 2, nothing sent', async () => {
    const { server, env } = await tenantEnv(variable);
    expect(await runCli(['auth', 'token'], { env })).toEqual({ code: 2, stdout: '', stderr: refusal });
    expect(server.requests).toEqual([]);
  });
});

describe('SVCADM_PROFILES beside -p', () => {
  it('is nothing to a command that talks to no tenant, and refused by one that takes --profiles', async () => {
    const { server, env } = await tenantEnv('dev');
    const local = await runCli(['-p', 'dev', 'profiles', 'list', '-o', 'json'], { env });
    expect({ code: local.code, stderr: local.stderr }).toEqual({
      code: 0,
      stderr: `Config folder: ${env.SVCADM_CONFIG_DIR}\n`,
    });
    expect(await runCli(['-p', 'dev', 'policies', 'list'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: SVCADM_PROFILES cannot be combined with -p: each profile is taken as a unit — unset SVCADM_PROFILES to run one tenant\n',
    });
    expect(await runCli(['-p', 'dev', 'auth', 'token'], { env })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: SVCADM_PROFILES cannot be combined with -p: each profile is taken as a unit — unset SVCADM_PROFILES to run one tenant\n',
    });
    expect(server.requests).toEqual([]);
  });

  it('the built binary: `emulator --help` with a trailing comma in the variable is exit 0', async () => {
    const r = await runBin(['emulator', '--help'], { SVCADM_PROFILES: 'prod-*,' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.startsWith('Usage: svcadm emulator [options] [command]\n')).toBe(true);
  });
});
