import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureTenant } from '../helpers/fixture-tenant.js';
import { requireProgram } from '../helpers/requires.js';
import { EXECUTABLE, pathWithoutNode, runBin, tempConfigDir } from '../helpers/run-cli.js';
import {
  needsSecretService,
  type SecretService,
  skipWithoutSecretService,
  startSecretService,
} from '../helpers/secret-service.js';
import { openTerminal } from '../helpers/tmux.js';

// The single executable (scripts/release/executable.js), named by SVCADM_TEST_EXECUTABLE, run as on a machine
// without Node: PATH holds no `node`. Skipped, saying so, without it; .ci/run builds the executable and sets it.
const skip = EXECUTABLE === undefined;
const title = (name: string) => (skip ? `${name} [skipped: set SVCADM_TEST_EXECUTABLE to an executable]` : name);
const version = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;

describe.skipIf(skip)('the single executable, with no node on PATH', () => {
  let home: string;
  let emulatorEnv: Record<string, string>;
  let emulatorPid = 0;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'svcadm-executable-home-'));
    // The background emulator: a child the executable starts of itself (no node on PATH to start one with).
    const started = await runBin(['emulator', '--print-env', '--port', '0', '--seed', '3'], { HOME: home });
    // Its process id first: stopped after the tests even when a check below fails.
    emulatorPid = Number(/(?:^|\n)export SVCADM_EMULATOR_PID=(\d+)/.exec(started.stdout)?.[1] ?? 0);
    expect(started.stderr).toMatch(
      /^svcadm emulator: running in the background at http:\/\/127\.0\.0\.1:\d+ \(process \d+\); stop it with: kill "\$SVCADM_EMULATOR_PID"\n$/,
    );
    expect(started.code).toBe(0);
    emulatorEnv = Object.fromEntries(
      started.stdout
        .trim()
        .split('\n')
        .map((line) => line.slice('export '.length).split('=') as [string, string]),
    );
    expect(Number(emulatorEnv.SVCADM_EMULATOR_PID)).toBe(emulatorPid);
  });
  afterAll(() => {
    if (emulatorPid > 0) process.kill(emulatorPid, 'SIGTERM');
  });
  const env = (): Record<string, string> => ({
    HOME: home,
    SVCADM_CONFIG_DIR: tempConfigDir(),
    SVCADM_DOMAIN: emulatorEnv.SVCADM_DOMAIN ?? '',
    SVCADM_CLIENT_ID: emulatorEnv.SVCADM_CLIENT_ID ?? '',
    SVCADM_CLIENT_SECRET: emulatorEnv.SVCADM_CLIENT_SECRET ?? '',
  });

  it(title('answers --version'), async () => {
    expect(await runBin(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it(title('lists policies and tails 5 events from the emulator it started in the background'), async () => {
    const policies = await runBin(['policies', 'list', '-o', 'json'], env());
    expect(policies.code).toBe(0);
    expect(
      (JSON.parse(policies.stdout) as { rate_limit_policies: unknown[] }).rate_limit_policies.length,
    ).toBeGreaterThan(0);
    const tail = await runBin(['events', 'tail', '--since', '7d', '--max-events', '5', '-o', 'ndjson'], env());
    expect(tail.code).toBe(0);
    expect(tail.stdout.trim().split('\n')).toHaveLength(5);
  });

  it(title("serves MCP: tools/list names svcadm's tools"), async () => {
    const transport = new StdioClientTransport({
      command: EXECUTABLE ?? '',
      args: ['mcp'],
      env: { PATH: pathWithoutNode(), ...env() },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'executable-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('list_rate_limit_policies');
    } finally {
      await client.close();
    }
  });

  it(title('writes the bash completion'), async () => {
    const r = await runBin(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -F');
  });
});

const tmux = requireProgram('tmux');

/** A PATH for a terminal with no `node`: the shell's few programs linked into a folder, then PATH without node. */
function terminalPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-no-node-'));
  for (const program of ['sh', 'cat', 'tmux']) {
    const found = execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
    symlinkSync(found, join(dir, program));
  }
  return `${dir}:${pathWithoutNode()}`;
}

describe.skipIf(skip || tmux.missing)('the single executable in a terminal', () => {
  it(title(tmux.title('shows the live view of events tail, and q stops it')), async () => {
    const tenant = await startFixtureTenant();
    const terminal = await openTerminal([EXECUTABLE ?? '', 'events', 'tail', '--since', '2d'], {
      columns: 80,
      rows: 16,
      env: { SVCADM_CONFIG_DIR: tenant.configDir(), PATH: terminalPath() },
    });
    try {
      await terminal.waitFor((text) => text.includes('● connected · 4 events'));
      await terminal.waitFor((text) => (text.split('\n').at(-1) ?? '').includes('q quit'), 10_000, 250);
      await terminal.keys('q');
      expect(await terminal.exited()).toBe(0);
      const lines = (await terminal.screen()).split('\n');
      expect(lines.filter((line) => line.startsWith('■ stopped: q pressed · 4 events'))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^resume with: svcadm -p \S+ events tail --from \S+$/);
    } finally {
      await terminal.close();
      await tenant.close();
    }
  });
});

describe.skipIf(skip || skipWithoutSecretService)('the single executable and the OS keyring', () => {
  let keyring: SecretService;
  let cache: string;
  beforeAll(async () => {
    keyring = await startSecretService();
    cache = mkdtempSync(join(tmpdir(), 'svcadm-executable-cache-'));
  });
  afterAll(() => keyring?.stop());
  const addArgs = (name: string) => [
    'profiles',
    'add',
    name,
    '--domain',
    'tenant.example.com',
    '--client-id',
    'cid',
    '--client-secret-stdin',
    '--no-verify',
  ];

  it(
    title(`stores and reads a secret through its own addon, written to a private folder${needsSecretService}`),
    async () => {
      const env = { ...keyring.env, XDG_CACHE_HOME: cache, SVCADM_CONFIG_DIR: tempConfigDir() };
      const add = await runBin(addArgs('exe'), env, 'exe-secret');
      expect(add.stderr).toBe(
        "Saved profile 'exe' for https://tenant.example.com (client cid); it is the current profile. The client secret is stored in the OS keyring.\n",
      );
      expect(add.code).toBe(0);
      expect(keyring.lookup(`svcadm ${env.SVCADM_CONFIG_DIR}`, 'exe')).toBe('exe-secret');
      const folder = join(cache, 'svcadm-nodejs', `executable-${version}`);
      expect(lstatSync(folder).mode & 0o777).toBe(0o700);
      expect(existsSync(join(folder, 'keyring.node'))).toBe(true);
      const show = await runBin(['profiles', 'show', 'exe', '-o', 'table'], env);
      expect(show.stdout.split('\n')).toContain('client secret  (in the OS keyring, not shown)');
    },
  );

  it(
    title(`refuses a cache folder others can read: no keyring, the secret in the file, said once${needsSecretService}`),
    async () => {
      const open = mkdtempSync(join(tmpdir(), 'svcadm-executable-cache-'));
      const folder = join(open, 'svcadm-nodejs', `executable-${version}`);
      execFileSync('mkdir', ['-p', folder]);
      chmodSync(folder, 0o755);
      const env = { ...keyring.env, XDG_CACHE_HOME: open, SVCADM_CONFIG_DIR: tempConfigDir() };
      const add = await runBin(addArgs('open'), env, 's');
      expect(add.code).toBe(0);
      expect(add.stderr).toBe(
        `svcadm: warning: no usable OS keyring (refusing to use ${folder}: its mode is 0755, not 0700): the client secret is stored in ${join(env.SVCADM_CONFIG_DIR, 'profiles.json')} (mode 0600)\nSaved profile 'open' for https://tenant.example.com (client cid); it is the current profile.\n`,
      );
      expect(existsSync(join(folder, 'keyring.node'))).toBe(false);
    },
  );

  it(title(`writes the addon again when the file in the folder was changed${needsSecretService}`), async () => {
    const env = { ...keyring.env, XDG_CACHE_HOME: cache, SVCADM_CONFIG_DIR: tempConfigDir() };
    const file = join(cache, 'svcadm-nodejs', `executable-${version}`, 'keyring.node');
    await runBin(addArgs('first'), env, 'one');
    chmodSync(file, 0o600);
    writeFileSync(file, 'not an addon');
    const add = await runBin(addArgs('second'), env, 'two');
    expect(add).toMatchObject({
      code: 0,
      stderr:
        "Saved profile 'second' for https://tenant.example.com (client cid). The client secret is stored in the OS keyring.\n",
    });
    expect(keyring.lookup(`svcadm ${env.SVCADM_CONFIG_DIR}`, 'second')).toBe('two');
    expect(readFileSync(file).length).toBeGreaterThan(100_000);
  });
});
