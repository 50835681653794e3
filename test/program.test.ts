import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run-cli.js';

const HELP_HINT = " — see 'svcadm --help'";

describe('program parsing', () => {
  it('prints the overview and exits 0 when run alone', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: svcadm \[options\] \[command\]/);
    expect(r.stdout).toContain('Exit codes:\n  0 ok, 1 bug');
    expect(r.stderr).toBe('');
  });

  it('prints a group help on stdout with exit 0 when the verb is missing', async () => {
    const r = await runCli(['policies']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: svcadm policies [options] [command]');
  });

  it('prints the version', async () => {
    const r = await runCli(['--version']);
    expect(r).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('suggests the nearest command for a typo', async () => {
    const r = await runCli(['polcies', 'get', 'x']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: unknown command 'polcies' (did you mean policies?)${HELP_HINT}\n`,
    });
  });

  it('suggests the nearest verb of a group and points at the group help', async () => {
    const r = await runCli(['users', 'permisions', 'u1']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svcadm: unknown command 'permisions' (did you mean permissions?) — see 'svcadm users --help'\n",
    });
  });

  it('suggests the nearest option for a typo, even after the subcommand', async () => {
    const r = await runCli(['policies', 'get', 'x', '--outptu', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "svcadm: unknown option '--outptu' (did you mean --output?) — see 'svcadm policies get --help'\n",
    );
  });

  it('rejects an unknown output format', async () => {
    const r = await runCli(['policies', 'get', 'x', '-o', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svcadm: --output must be table, wide, json, yaml, ndjson or raw, got 'xml'${HELP_HINT}\n`);
  });

  it('rejects a policy id longer than 26 characters before sending anything', async () => {
    const r = await runCli(['policies', 'get', 'x'.repeat(27)]);
    expect(r).toEqual({ code: 2, stdout: '', stderr: 'svcadm: policy id must be 1 to 26 characters, got 27\n' });
  });

  it('refuses plain http to a host that is not loopback (exit 2)', async () => {
    const r = await runCli(['policies', 'get', 'p1', '--domain', 'http://tenant.example.com', '--token', 't']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'svcadm: refusing plain http to tenant.example.com: credentials would cross the network unencrypted — use https://, or http:// only for loopback hosts (127.0.0.1, ::1, localhost)\n',
    );
  });

  it('exits 3 with a hint when no credentials are configured', async () => {
    const r = await runCli(['policies', 'get', 'p1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'svcadm: no tenant configured — run `svcadm profiles add <name> --domain <tenant> --client-id <id>`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET\n',
    );
  });

  it('ends with a JSON error envelope under -o json', async () => {
    const r = await runCli(['policies', 'get', 'p1', '--domain', 'tenant.example.com', '-o', 'json']);
    expect(r.code).toBe(3);
    const last = r.stderr.trimEnd().split('\n').at(-1) ?? '';
    expect(JSON.parse(last)).toEqual({
      error: {
        status: null,
        code: 'no_credentials',
        message: 'no credentials configured for https://tenant.example.com',
        hint: 'run `svcadm profiles add <name> --domain <tenant> --client-id <id>`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET',
        exit_code: 3,
      },
    });
  });

  it('validates --max-retries and --timeout', async () => {
    expect((await runCli(['policies', 'get', 'p1', '--max-retries', 'many'])).stderr).toBe(
      "svcadm: --max-retries must be a whole number from 0 to 100, got 'many'\n",
    );
    const r = await runCli(['policies', 'get', 'p1', '--timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svcadm: invalid --timeout 'soon': expected a duration such as 30s, 15m, 2h or 7d\n");
  });

  it('names an unknown profile and lists the known ones', async () => {
    const r = await runCli(['policies', 'get', 'p1', '-p', 'nope']);
    expect(r.code).toBe(2);
    // The config folder in use is named: runCli made a fresh one.
    expect(r.stderr).toMatch(
      /^svcadm: no profile named 'nope' in \/tmp\/svcadm-test-\w+ — run `svcadm profiles add <name> --domain <tenant> --client-id <id>`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET\n$/,
    );
  });
});
