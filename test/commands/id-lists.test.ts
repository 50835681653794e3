import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { startTestEmulator, type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { givenTokenEnv, runCli, tempConfigDir } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

/** Tables are read at this time: their ages are then fixed. */
const at = () => new VirtualClock(Date.parse('2025-06-05T12:00:00Z'));

function table(args: string[], columns: number) {
  return runCli([...args, '-o', 'table'], { env, tty: { stdout: true }, columns, clock: at() });
}

async function requested(path: string): Promise<string[]> {
  const { requests } = await emu.requests();
  return requests.filter((r) => r.path === `/api/v2${path}`).map((r) => r.query);
}

describe('svcadm policies list (issue 18 item 6)', () => {
  it('prints the ids with their selectors as a table that fits', async () => {
    const wide = await table(['policies', 'list'], 120);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toBe(
      [
        'ID                          CONSUMER SELECTOR                                                ACTION    LIMIT',
        'rlp_lxp8z12v65g6ivg32rm1u2  default                                                          allow     -',
        'rlp_9xht4sn0o7makc8ait      client_id:j9em17e5pqc2g1s0gzgdsaxk36me25nr                       block     100/s',
        'rlp_s1vful109q4icrl8jw      client_id:https://cimd.example.com/clients/reporting.json        log       50/s',
        'rlp_8nvp0rea7haf6hzcwm      cimd_clients                                                     redirect  20/s',
        'rlp_h900akzdxvj4z7x2g4      third_party_clients                                              block     0/s',
        'rlp_230rdog82hbvzg2sex      client_id:kj6sdr0dpiayw3xswatsq2nk0snn5rke                       redirect  10000/s',
        'rlp_hdhrzabnyw0jhe6813      client_id:u8bd5p77wcjm7ubajwq9ni463q5qltiz                       allow     -',
        'rlp_ehbmlh4u7qr14uhvxn      client_id:https://partner.example.org/cimd/client-metadata.json  log       0/s',
        '',
      ].join('\n'),
    );
    expect(wide.stderr).toBe('');
    const narrow = await table(['policies', 'list'], 50);
    expect(narrow.stdout.split('\n').slice(0, 4)).toEqual([
      'ID                          CONSUMER SELECTOR',
      'rlp_lxp8z12v65g6ivg32rm1u2  default',
      'rlp_9xht4sn0o7makc8ait      client_id:j9em17e5pqc…',
      'rlp_s1vful109q4icrl8jw      client_id:https://cim…',
    ]);
    expect(narrow.stderr).toBe('Hidden to fit: LIMIT, ACTION (-o wide shows all)\n');
  });

  it('sends the filters and names the next page with them; the next page continues where the first stopped', async () => {
    const first = await table(['policies', 'list', '--take', '3', '--resource', 'oauth_authentication_api'], 120);
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n').map((l) => l.slice(0, 26))).toEqual([
      'ID                        ',
      'rlp_lxp8z12v65g6ivg32rm1u2',
      'rlp_9xht4sn0o7makc8ait    ',
      'rlp_s1vful109q4icrl8jw    ',
      '',
    ]);
    const next = new RegExp(
      `^Next page: svcadm --domain ${emu.url.replace(/\./g, '\\.')} -o table policies list --resource oauth_authentication_api --from (\\S+) --take 3\\n$`,
    ).exec(first.stderr);
    expect(next, first.stderr).not.toBeNull();
    const second = await runCli(
      [
        'policies',
        'list',
        '--resource',
        'oauth_authentication_api',
        '--from',
        next?.[1] ?? '',
        '--take',
        '3',
        '-o',
        'json',
      ],
      { env },
    );
    expect(JSON.parse(second.stdout).rate_limit_policies.map((p: { id: string }) => p.id)).toEqual(
      emu.fixtures.policyIds.slice(3, 6),
    );
    const selected = await runCli(['policies', 'list', '--consumer-selector', 'cimd_clients', '-o', 'ndjson'], { env });
    expect(selected.stdout).toBe(
      `${JSON.stringify({
        id: emu.fixtures.policyIdByAction.redirect,
        resource: 'oauth_authentication_api',
        consumer: 'client',
        consumer_selector: 'cimd_clients',
        configuration: { action: 'redirect', limit: 20, redirect_uri: 'https://status.example.com/slow-down' },
        created_at: '2024-10-28T19:06:01.000Z',
        updated_at: '2024-12-06T19:06:01.000Z',
      })}\n`,
    );
    expect(await requested('/rate-limit-policies')).toEqual([
      'take=3&resource=oauth_authentication_api',
      `take=3&from=${next?.[1]}&resource=oauth_authentication_api`,
      'consumer_selector=cimd_clients',
    ]);
  });

  it('--all follows every checkpoint and prints each policy once', async () => {
    const r = await runCli(['policies', 'list', '--all', '--take', '3', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(emu.fixtures.policyIds);
    expect(await requested('/rate-limit-policies')).toHaveLength(3);
    const none = await table(['policies', 'list', '--consumer', 'user'], 80);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, '', 'No rate limit policies match.\n']);
  });

  it('a tenant without the feature: one line that says so, exit 4', async () => {
    const without = await startTestEmulator({ eventRate: 0, rateLimitPolicies: false });
    try {
      const r = await runCli(['policies', 'list'], { env: { ...without.env, SVCADM_CONFIG_DIR: tempConfigDir() } });
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'svcadm: rate limit policies not enabled on this tenant: The rate limit policies feature is not enabled for this tenant. — rate limit policies are an Early Access feature: ask the service to enable them on this tenant\n',
      );
    } finally {
      await without.close();
    }
  });

  it('refuses bad options before sending anything (exit 2)', async () => {
    await emu.clearRequests();
    for (const [args, line] of [
      [['--take', '0'], 'svcadm: --take must be from 1 to 100, got 0'],
      [
        ['--all', '--from', 'x'],
        'svcadm: --all cannot be combined with --from — --all starts at the beginning and follows every page',
      ],
      [['--consumer-selector', ''], 'svcadm: --consumer-selector must not be empty'],
    ] as Array<[string[], string]>) {
      const r = await runCli(['policies', 'list', ...args], { env });
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `${line}\n`]);
    }
    expect((await emu.requests()).requests).toEqual([]);
  });
});

describe('svcadm connections list (issue 18 item 7)', () => {
  it('--strategy auth0 lists the database connections that delete-user accepts', async () => {
    const r = await table(['connections', 'list', '--strategy', 'auth0'], 80);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'ID                    NAME                              STRATEGY',
        'con_mtjxh2yzm34loy7u  Username-Password-Authentication  auth0',
        'con_pesukgm7mmel5me0  Staff-Database                    auth0',
        'con_g020jwikmw33nz4y  wonka-auth0-016                   auth0',
        'con_dlyed973jvbpacn7  globex-auth0-019                  auth0',
        'con_a0cp2xzr8fnqmfd3  soylent-auth0-032                 auth0',
        'con_la216fsnai1nk82f  umbrella-auth0-053                auth0',
        'con_gjjff4sn6v4ge5o1  wayne-auth0-054                   auth0',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    const del = await runCli(
      ['connections', 'delete-user', 'con_pesukgm7mmel5me0', '--email', 'ops@example.com', '--yes', '-o', 'json'],
      { env },
    );
    expect(del.code, del.stderr).toBe(0);
  });

  it('repeated --strategy and --name are sent as given; take defaults to 50 and the next page is named', async () => {
    const r = await table(['connections', 'list'], 80);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(52);
    expect(r.stderr).toMatch(/^Next page: svcadm --domain \S+ -o table connections list --from \S+\n$/);
    await runCli(['connections', 'list', '--strategy', 'samlp', '--strategy', 'oidc', '--name', 'Corporate-OIDC'], {
      env,
    });
    expect(await requested('/connections')).toEqual([
      'take=50',
      'strategy=samlp&strategy=oidc&name=Corporate-OIDC&take=50',
    ]);
  });

  it('--all prints every connection once across checkpoint pages, names neutralised', async () => {
    const r = await runCli(['connections', 'list', '--all', '--take', '25', '-o', 'ndjson'], { env });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(emu.fixtures.connectionIds);
    expect(await requested('/connections')).toHaveLength(3);
    const t = await table(['connections', 'list', '--all'], 80);
    const hostile = t.stdout.split('\n').find((l) => l.includes('corp-'));
    expect(hostile).not.toContain('\u001b');
    expect(hostile).not.toContain('\u202e');
  });

  it('-o wide adds the display name; bad options are refused before anything is sent', async () => {
    const r = await runCli(['connections', 'list', '--take', '2', '-o', 'wide'], {
      env,
      tty: { stdout: true },
      columns: 60,
    });
    expect(r.stdout).toBe(
      [
        'ID                    NAME                              STRATEGY  DISPLAY NAME                      DOMAIN',
        'con_mtjxh2yzm34loy7u  Username-Password-Authentication  auth0     Username-Password-Authentication  no',
        'con_pesukgm7mmel5me0  Staff-Database                    auth0     Staff                             no',
        '',
      ].join('\n'),
    );
    await emu.clearRequests();
    const bad = await runCli(['connections', 'list', '--strategy', 'Not A Strategy'], { env });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "svcadm: --strategy 'Not A Strategy' is not a strategy name — e.g. --strategy auth0 (database connections), samlp, oidc, google-oauth2\n",
    ]);
    expect((await emu.requests()).requests).toEqual([]);
  });
});

describe('svcadm users find (issue 18 item 8)', () => {
  it('lists the users with the address in every connection that holds it', async () => {
    const r = await table(['users', 'find', '--email', emu.fixtures.sharedEmail], 120);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'USER ID       CONNECTION                        NAME           CREATED (UTC)',
        'db|user-0001  Username-Password-Authentication  Alice Example  2025-02-24 07:07 (101d ago)',
        'db|user-0036  Staff-Database                    Alice (staff)  2024-07-27 05:16 (313d ago)',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    const narrow = await table(['users', 'find', '--email', emu.fixtures.sharedEmail], 50);
    expect(narrow.stdout).toBe(
      [
        'USER ID       CONNECTION',
        'db|user-0001  Username-Password-Authentication',
        'db|user-0036  Staff-Database',
        '',
      ].join('\n'),
    );
    expect(narrow.stderr).toBe('Hidden to fit: CREATED (UTC), NAME (-o wide shows all)\n');
    expect(await requested('/users-by-email')).toEqual(['email=alice%40example.com', 'email=alice%40example.com']);
  });

  it('an address with no user: an empty list and exit 0; the table view says so on stderr', async () => {
    const t = await table(['users', 'find', '--email', 'nobody@example.com'], 80);
    expect([t.code, t.stdout, t.stderr]).toEqual([0, '', 'No user has the e-mail nobody@example.com.\n']);
    for (const [format, out] of [
      ['json', '[]\n'],
      ['ndjson', ''],
      ['yaml', '[]\n'],
    ]) {
      const r = await runCli(['users', 'find', '--email', 'nobody@example.com', '-o', format as string], { env });
      expect([r.code, r.stdout, r.stderr], format).toEqual([0, out, '']);
    }
  });

  it('--email is required and checked before anything is sent (exit 2)', async () => {
    await emu.clearRequests();
    const missing = await runCli(['users', 'find'], { env });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      "svcadm: --email is required (<address>) — see 'svcadm users find --help'\n",
    ]);
    const bad = await runCli(['users', 'find', '--email', 'not-an-address'], { env });
    expect([bad.code, bad.stderr]).toEqual([2, "svcadm: --email 'not-an-address' is not a valid e-mail address\n"]);
    expect((await emu.requests()).requests).toEqual([]);
  });
});

describe('a tenant without directory provisioning (issue 18 item 5)', () => {
  it('provisionings list says the feature is not enabled, exit 4', async () => {
    const without = await startTestEmulator({ eventRate: 0, directoryProvisioning: false });
    try {
      const r = await runCli(['provisionings', 'list'], {
        env: { ...without.env, SVCADM_CONFIG_DIR: tempConfigDir() },
      });
      expect([r.code, r.stdout]).toEqual([4, '']);
      expect(r.stderr).toBe(
        "svcadm: directory provisioning not enabled on this tenant: The directory provisioning feature is not enabled for this tenant. — directory provisioning depends on the tenant's plan: enable it in the tenant's settings or ask the service\n",
      );
    } finally {
      await without.close();
    }
  });
});

describe('scopes: read:rate_limit_policies, read:connections, read:users', () => {
  /** A token of the admin client narrowed to `scope`, as a tenant grants a client only some scopes. */
  async function tokenWith(scope: string): Promise<string> {
    const res = await fetch(`${emu.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: emu.admin.clientId,
        client_secret: emu.admin.clientSecret,
        audience: `${emu.url}/api/v2/`,
        scope,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it('a missing scope is named, with the hint to grant it; it is never taken for a missing feature', async () => {
    const token = await tokenWith('read:events');
    const tokenEnv = givenTokenEnv(emu.url, token);
    for (const [args, scope] of [
      [['policies', 'list'], 'read:rate_limit_policies'],
      [['connections', 'list'], 'read:connections'],
      [['users', 'find', '--email', 'alice@example.com'], 'read:users'],
    ] as Array<[string[], string]>) {
      const r = await runCli(args, { env: tokenEnv });
      expect([r.code, r.stdout, r.stderr], args.join(' ')).toEqual([
        4,
        '',
        `svcadm: forbidden: Insufficient scope, expected any of: ${scope} — grant the scope ${scope} to the client in the tenant's settings\n`,
      ]);
    }
  });
});
