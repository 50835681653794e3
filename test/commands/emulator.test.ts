import { generateKeyPairSync, sign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EMULATOR_PORT, parseEmulatorFlags } from '../../src/commands/emulator/options.js';
import { formatLimitValue, LIMIT_NAMES, LIMITS, type Limit, type LimitName } from '../../src/emulator/limits.js';
import { startEmulator } from '../../src/emulator/server.js';
import { UsageError } from '../../src/errors.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

describe('svcadm emulator: parsing', () => {
  it('defaults to 127.0.0.1:4010 and converts every flag', () => {
    expect(parseEmulatorFlags({})).toEqual({ host: '127.0.0.1', port: DEFAULT_EMULATOR_PORT, control: true });
    expect(
      parseEmulatorFlags({
        port: '0',
        seed: '7',
        users: '10',
        permissions: '1000',
        provisionings: '250',
        events: '25',
        eventRate: '0.5',
        latency: '250',
        rateLimit: '5',
        failRate: '0.1',
        pageCap: '100',
        dropStreamsAfter: '3',
        streamLifetime: '2s',
        maxStreams: '1',
        heartbeat: '500ms',
        unknownUserDelete: '404',
        control: true,
      }),
    ).toEqual({
      host: '127.0.0.1',
      port: 0,
      seed: 7,
      users: 10,
      permissions: 1000,
      provisionings: 250,
      events: 25,
      eventRate: 0.5,
      latencyMs: 250,
      rateLimit: 5,
      failRate: 0.1,
      pageCap: 100,
      dropStreamsAfter: 3,
      streamLifetimeMs: 2000,
      maxStreams: 1,
      heartbeatMs: 500,
      unknownUserDeleteStatus: 404,
      control: true,
    });
  });

  it.each([
    { port: '70000' },
    { port: 'abc' },
    { seed: '-1' },
    { events: '24' },
    { failRate: '1.5' },
    { eventRate: 'fast' },
    { latency: 'soon' },
    { rateLimit: '-3' },
    { unknownUserDelete: '500' },
    { clientSecret: '' },
    { clientSecret: 'with space' },
    { unknownUserDelete: '204x' },
    { host: '' },
  ])('refuses %o with a usage error', (flags) => {
    expect(() => parseEmulatorFlags(flags)).toThrow(UsageError);
  });

  it('takes the admin secret from --client-secret (a global option, handed over by commander)', () => {
    expect(parseEmulatorFlags({ clientSecret: 's3cret!' }).clientSecret).toBe('s3cret!');
  });

  it('exits 2 on a bad value through the CLI', async () => {
    const result = await runCli(['emulator', '--fail-rate', '2']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});

/** commander's attribute of a flag, as `parseEmulatorFlags` receives it. */
const attributeOf = (flag: string) => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const bounded = LIMIT_NAMES.filter((name) => LIMITS[name].max < Number.MAX_SAFE_INTEGER).map(
  (name): [LimitName, Limit] => [name, LIMITS[name]],
);

describe('emulator limits: one table for the flags, startEmulator and the control API', () => {
  it.each(bounded)('%s: one past the maximum is refused by all three', async (name, limit) => {
    const over = limit.max + 1;
    const { flag } = limit;
    if (flag !== undefined) {
      expect(() => parseEmulatorFlags({ [attributeOf(flag)]: String(over) })).toThrow(
        new RegExp(`^${flag} must be .* to ${formatLimitValue(limit, limit.max)}, got '${over}'$`),
      );
      expect(parseEmulatorFlags({ [attributeOf(flag)]: String(limit.max) })[name]).toBe(limit.max);
    }
    await expect(startEmulator({ [name]: over })).rejects.toThrow(
      `emulator option ${name} must be ${limit.integer ? 'an integer' : 'a number'} from ${limit.min} to ${limit.max}`,
    );
    if (!limit.setting) return;
    const emu = await startTestEmulator({ eventRate: 0 });
    try {
      const refused = await fetch(`${emu.url}/__emulator/settings`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ [name]: over }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: 'bad_request',
        message: `${name} must be ${limit.integer ? 'an integer' : 'a number'} from ${limit.min} to ${limit.max}`,
      });
      const settings: Record<string, unknown> = await emu.updateSettings({ [name]: limit.max });
      expect(settings[name]).toBe(limit.max);
    } finally {
      await emu.close();
    }
  });

  it('lists every flag of the table in the help, with its default', async () => {
    const help = await runCli(['emulator', '--help']);
    expect(help.code).toBe(0);
    for (const name of LIMIT_NAMES) {
      const limit: Limit = LIMITS[name];
      if (limit.flag === undefined) continue;
      const shown = formatLimitValue(limit, limit.commandDefault ?? limit.default);
      expect(help.stdout).toMatch(
        new RegExp(`${limit.flag} <[a-z]+>(?:(?!\\n  --)[\\s\\S])*?\\(default\\s+${shown}\\)`),
      );
    }
  });
});

/** Runs `svcadm emulator <args> --json` in this process until `stop`; `start` is its parsed first stdout line. */
function runJsonEmulator(args: string[]) {
  const interrupt = new AbortController();
  let resolveLine: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    resolveLine = resolve;
  });
  let stdout = '';
  const running = runCli(['emulator', '--port', '0', '--json', '--event-rate', '0', ...args], {
    interrupt: interrupt.signal,
    onStdout: (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolveLine(stdout.slice(0, stdout.indexOf('\n')));
    },
  });
  return {
    start: Promise.race([
      firstLine.then((line) => JSON.parse(line) as { env: Record<string, string>; readOnly: { clientSecret: string } }),
      running.then((r) => {
        throw new Error(`svcadm emulator ended (${r.code}) before its start line: ${r.stderr}`);
      }),
    ]),
    stop() {
      interrupt.abort();
      return running;
    },
  };
}

// Issue 38 point 12: the control API is on by default on a loopback address, so that `emulator trigger` works
// after the README's first block; --no-control turns it off, and any other address needs --control.
describe('svcadm emulator: the control API by default', () => {
  it('on for a loopback address, off elsewhere; --control and --no-control say otherwise', () => {
    const control = (flags: Parameters<typeof parseEmulatorFlags>[0]) => parseEmulatorFlags(flags).control;
    expect([
      control({}),
      control({ host: '::1' }),
      control({ host: 'localhost' }),
      control({ host: '0.0.0.0' }),
      control({ host: '192.0.2.7' }),
      control({ control: false }),
      control({ host: '0.0.0.0', control: true }),
    ]).toEqual([true, true, true, false, false, false, true]);
  });

  it('an emulator started as the README first starts it answers emulator trigger', async () => {
    const plain = runJsonEmulator([]);
    try {
      const { env } = await plain.start;
      const r = await runCli(['emulator', 'trigger', 'user.created'], {
        env: { ...env, SVCADM_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' },
        tty: { stdout: true },
      });
      expect([r.code, r.stdout]).toEqual([0, `Emitted 1 user.created event at the emulator ${env.SVCADM_DOMAIN}.\n`]);
    } finally {
      expect((await plain.stop()).code).toBe(0);
    }
  });

  it('--no-control: the tools exit 5, and the hint is the line that restarts it on the same port', async () => {
    const off = runJsonEmulator(['--no-control']);
    try {
      const { env } = await off.start;
      const url = env.SVCADM_DOMAIN ?? '';
      const port = new URL(url).port;
      const r = await runCli(['emulator', 'trigger', 'user.created'], {
        env: { ...env, SVCADM_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' },
      });
      expect(r).toEqual({
        code: 5,
        stdout: '',
        stderr:
          `svcadm: the emulator at ${url} (from SVCADM_DOMAIN) was started with its control API off (--no-control)` +
          ` — restart it with the control API on: kill "$SVCADM_EMULATOR_PID"; eval "$(svcadm emulator --print-env --port ${port})"\n`,
      });
      const { SVCADM_DOMAIN: _, ...credentials } = env;
      const fromFlag = await runCli(['--domain', url, 'emulator', 'reset'], {
        env: { ...credentials, SVCADM_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' },
      });
      expect([fromFlag.code, fromFlag.stderr]).toEqual([
        5,
        `svcadm: the emulator at ${url} (from --domain) was started with its control API off (--no-control)` +
          ` — stop it, then restart it with the control API on: svcadm emulator --port ${port}\n`,
      ]);
    } finally {
      expect((await off.stop()).code).toBe(0);
    }
  });
});

describe('svcadm emulator: running', () => {
  it('gives new secrets on every start, even with the same --seed, and --client-secret chooses the admin one', async () => {
    const first = runJsonEmulator(['--seed', '9']);
    const second = runJsonEmulator(['--seed', '9']);
    const chosen = runJsonEmulator(['--seed', '9', '--client-secret', 'chosen-secret']);
    try {
      const [a, b, c] = await Promise.all([first.start, second.start, chosen.start]);
      expect(a.env.SVCADM_CLIENT_ID).toBe(b.env.SVCADM_CLIENT_ID);
      expect(a.env.SVCADM_CLIENT_SECRET).not.toBe(b.env.SVCADM_CLIENT_SECRET);
      expect(a.readOnly.clientSecret).not.toBe(b.readOnly.clientSecret);
      expect(a.env.SVCADM_CLIENT_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(c.env.SVCADM_CLIENT_SECRET).toBe('chosen-secret');
    } finally {
      const results = await Promise.all([first.stop(), second.stop(), chosen.stop()]);
      expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    }
  });

  it('--client-public-key registers a PEM key on the admin client for client_assertion authentication', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = tempConfigDir();
    const file = join(dir, 'admin.pub.pem');
    writeFileSync(file, publicKey.export({ type: 'spki', format: 'pem' }));
    const running = runJsonEmulator(['--client-public-key', file]);
    try {
      const start = (await running.start) as unknown as { url: string; admin: { clientId: string } };
      const now = Math.floor(Date.now() / 1000);
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const claims = {
        iss: start.admin.clientId,
        sub: start.admin.clientId,
        aud: `${start.url}/`,
        exp: now + 60,
        jti: 'cli-1',
      };
      const input = `${encode({ alg: 'RS256' })}.${encode(claims)}`;
      const res = await fetch(`${start.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          audience: `${start.url}/api/v2/`,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`,
        }),
      });
      expect(res.status).toBe(200);
    } finally {
      expect((await running.stop()).code).toBe(0);
    }
    const missing = await runCli(['emulator', '--port', '0', '--client-public-key', join(dir, 'nope.pem')]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain(`cannot read --client-public-key ${join(dir, 'nope.pem')}: ENOENT`);
    const privateFile = join(dir, 'admin.key.pem');
    writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const wrongHalf = await runCli(['emulator', '--port', '0', '--client-public-key', privateFile]);
    expect(wrongHalf).toMatchObject({ code: 2, stdout: '' });
    expect(wrongHalf.stderr).toContain('this is a private key: register the public key');
  });

  it('--no-directory-provisioning and --no-rate-limit-policies model a tenant without those features', async () => {
    const lacking = runJsonEmulator(['--no-directory-provisioning', '--no-rate-limit-policies']);
    try {
      const { env } = await lacking.start;
      const cli = { env: { ...env, SVCADM_CONFIG_DIR: tempConfigDir() } };
      const provisionings = await runCli(['provisionings', 'list'], cli);
      expect([provisionings.code, provisionings.stderr]).toEqual([
        4,
        "svcadm: directory provisioning not enabled on this tenant: The directory provisioning feature is not enabled for this tenant. — directory provisioning depends on the tenant's plan: enable it in the tenant's settings or ask the service\n",
      ]);
      const policies = await runCli(['policies', 'get', 'rlp_1'], cli);
      expect([policies.code, policies.stderr]).toEqual([
        4,
        'svcadm: rate limit policies not enabled on this tenant: The rate limit policies feature is not enabled for this tenant. — rate limit policies are an Early Access feature: ask the service to enable them on this tenant\n',
      ]);
      expect((await runCli(['connections', 'list', '--take', '1'], cli)).code).toBe(0);
    } finally {
      expect((await lacking.stop()).code).toBe(0);
    }
  });

  it('warns when the control API is reachable beyond loopback (the secrets are random per start)', async () => {
    const open = runJsonEmulator(['--host', '0.0.0.0', '--control']);
    await open.start;
    const opened = await open.stop();
    expect(opened.stderr).toContain(
      'svcadm emulator: warning: 0.0.0.0 is reachable from other machines, and so is the control API (--control): anyone there can reset the tenant and inject faults\n',
    );
    const plain = runJsonEmulator(['--host', '0.0.0.0']);
    await plain.start;
    expect((await plain.stop()).stderr).not.toContain('warning');
    const local = runJsonEmulator(['--control']);
    await local.start;
    expect((await local.stop()).stderr).not.toContain('warning');
  });

  it('prints the --json start line first, serves the CLI, and stops cleanly on Ctrl-C', async () => {
    const interrupt = new AbortController();
    let firstLine: Promise<string> | undefined;
    let resolveLine: (line: string) => void = () => {};
    firstLine = new Promise((resolve) => {
      resolveLine = resolve;
    });
    let stdout = '';
    const running = runCli(['emulator', '--port', '0', '--json', '--event-rate', '0'], {
      interrupt: interrupt.signal,
      onStdout: (chunk) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolveLine(stdout.slice(0, stdout.indexOf('\n')));
      },
    });
    const start = JSON.parse(await firstLine) as {
      url: string;
      port: number;
      env: Record<string, string>;
      fixtures: { policyIds: string[] };
    };
    firstLine = undefined;
    expect(start.url).toBe(`http://127.0.0.1:${start.port}`);
    expect(Object.keys(start.env).sort()).toEqual(['SVCADM_CLIENT_ID', 'SVCADM_CLIENT_SECRET', 'SVCADM_DOMAIN']);

    const policy = await runCli(['policies', 'get', start.fixtures.policyIds[0] ?? '', '-o', 'json'], {
      env: { ...start.env, SVCADM_CONFIG_DIR: tempConfigDir() },
    });
    expect(policy.stderr).toBe('');
    expect(policy.code).toBe(0);
    expect(JSON.parse(policy.stdout)).toMatchObject({ id: start.fixtures.policyIds[0] });

    interrupt.abort();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    await expect(fetch(`${start.url}/.well-known/jwks.json`)).rejects.toThrow();
  });

  it('prints the URL, both clients and export lines without --json', async () => {
    const interrupt = new AbortController();
    let resolveBanner: () => void = () => {};
    const banner = new Promise<void>((resolve) => {
      resolveBanner = resolve;
    });
    let stdout = '';
    const running = runCli(['emulator', '--port', '0', '--event-rate', '0', '--no-control'], {
      interrupt: interrupt.signal,
      onStdout: (chunk) => {
        stdout += chunk;
        if (stdout.includes('Bulk user')) resolveBanner();
      },
    });
    await banner;
    interrupt.abort();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stdout).toMatch(/^ {2}export SVCADM_DOMAIN=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toMatch(/^ {2}export SVCADM_CLIENT_ID=\S+$/m);
    expect(result.stdout).toMatch(/^ {2}export SVCADM_CLIENT_SECRET=\S+$/m);
    expect(result.stdout).toContain('read-only client');
    // This shell is busy running the emulator, so the exports are for another one.
    expect(result.stdout).toContain(
      '\nUse it from another shell (or start it with --print-env to use it from this one):\n',
    );
    expect(result.stdout).not.toContain('Control API');
  });

  it('with --control, the banner ends with the control API and the commands that drive it', async () => {
    const interrupt = new AbortController();
    let resolveBanner: () => void = () => {};
    const banner = new Promise<void>((resolve) => {
      resolveBanner = resolve;
    });
    let stdout = '';
    const running = runCli(['emulator', '--port', '0', '--event-rate', '0', '--control'], {
      interrupt: interrupt.signal,
      onStdout: (chunk) => {
        stdout += chunk;
        if (stdout.includes('emulator reset')) resolveBanner();
      },
    });
    await banner;
    interrupt.abort();
    const result = await running;
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout.slice(result.stdout.indexOf('Control API'))).toBe(
      [
        `Control API: ${url}/__emulator/ (svcadm emulator --help lists it); from a shell using this emulator:`,
        '  svcadm emulator trigger user.created --count 3',
        '  svcadm emulator fault /rate-limit-policies --status 503',
        '  svcadm emulator reset',
        '',
      ].join('\n'),
    );
  });
});
