import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { BIN, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { openTerminal } from '../helpers/tmux.js';

// Issue 16, item 6: agent mode makes svcadm behave as off a terminal even in a pseudo-terminal (tmux here): data
// formats by default, JSON errors, no prompt (a destructive command needs --yes).

let emu: TestEmulator;
let configDir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  configDir = tempConfigDir();
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

/** Runs the built svcadm in a 250-column pseudo-terminal with the emulator's credentials and `env`. */
async function inTerminal(args: string[], env: Record<string, string> = {}) {
  return openTerminal([process.execPath, BIN, ...args], {
    columns: 250,
    rows: 40,
    env: { ...emu.env, SVCADM_CONFIG_DIR: configDir, ...env },
  });
}

async function sentNothing(): Promise<void> {
  const { counters } = await emu.requests();
  expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
}

/** A question is asked after the reads that word it (who has the address): nothing but those was sent. */
async function readOnly(): Promise<void> {
  const { requests } = await emu.requests();
  expect(requests.filter((r) => r.kind === 'interface' && r.method !== 'GET')).toEqual([]);
}

const deleteUser = () => [
  'connections',
  'delete-user',
  emu.fixtures.databaseConnectionId,
  '--email',
  'bob+ci@example.com',
];

describe('a delete without --yes in a pseudo-terminal', () => {
  it.each([
    ['SVCADM_AGENT', '1'],
    ['CLAUDECODE', '1'],
    ['CODEX_SANDBOX', 'seatbelt'],
  ])('%s=%s: refused with the JSON envelope, exit 2, nothing sent', async (variable, value) => {
    const terminal = await inTerminal(deleteUser(), { [variable]: value });
    try {
      expect(await terminal.exited()).toBe(2);
      expect(await terminal.screen()).toBe(
        `{"error":{"status":null,"code":"confirmation_required","message":"refusing to delete without confirmation: agent mode (${variable})","hint":"pass --yes to delete","exit_code":2}}`,
      );
    } finally {
      await terminal.close();
    }
    await sentNothing();
  });

  it('without a marker (or with SVCADM_AGENT=0 over one): it asks, and a no sends nothing', async () => {
    const runs: Array<Record<string, string>> = [{}, { SVCADM_AGENT: '0', CLAUDECODE: '1' }];
    for (const env of runs) {
      const terminal = await inTerminal(deleteUser(), env);
      try {
        const host = new URL(emu.url).host;
        const question = `Delete bob+ci@example.com from connection ${emu.fixtures.databaseConnectionId} on ${host}? [y/N]`;
        await terminal.waitFor((screen) => screen.includes('[y/N]'));
        expect(await terminal.screen()).toBe(question);
        await terminal.keys('n', 'Enter');
        expect(await terminal.exited()).toBe(2);
        expect(await terminal.screen()).toBe(`${question} n\nsvcadm: not confirmed: nothing was deleted`);
      } finally {
        await terminal.close();
      }
      await readOnly();
    }
  });
});

describe('data by default in a pseudo-terminal', () => {
  it('GEMINI_CLI=1: a policy is JSON; the same run without it, a table', async () => {
    const id = emu.fixtures.policyIdByAction.block;
    const agent = await inTerminal(['policies', 'get', id], { GEMINI_CLI: '1' });
    const person = await inTerminal(['policies', 'get', id]);
    try {
      expect(await agent.exited()).toBe(0);
      expect(await person.exited()).toBe(0);
      const shown = await agent.screen();
      expect(JSON.parse(shown)).toMatchObject({ id, configuration: { action: 'block' } });
      expect((await person.screen()).split('\n')[0]).toMatch(/^Rate limit policy /);
    } finally {
      await agent.close();
      await person.close();
    }
  });
});

describe('no live view for an agent', () => {
  it('AI_AGENT=my-bot: events tail prints an NDJSON line in a pseudo-terminal, with no status line', async () => {
    const { before } = await emu.emit('user.created', 1);
    const terminal = await inTerminal(['events', 'tail', '--from', before, '--max-events', '1'], {
      AI_AGENT: 'my-bot',
    });
    try {
      expect(await terminal.exited()).toBe(0);
      // One payload, wrapped by the terminal at 250 columns: nothing else on the screen.
      const screen = (await terminal.screen()).replace(/\n/g, '');
      expect(JSON.parse(screen)).toMatchObject({ type: 'user.created' });
    } finally {
      await terminal.close();
    }
  });
});

describe('no colour and no progress for an agent, even with -o table on a terminal', () => {
  it('CURSOR_AGENT=1: the table is plain text and stderr has no progress line; without it, both', async () => {
    const args = ['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'table'];
    const tty = { stdout: true, stderr: true, stdin: true };
    const agent = await runCli(args, { env: { ...emu.env, CURSOR_AGENT: '1' }, tty });
    const person = await runCli(args, { env: emu.env, tty });
    expect({ code: agent.code, stderr: agent.stderr }).toEqual({ code: 0, stderr: '' });
    expect(agent.stdout).not.toContain('\x1b');
    expect(agent.stdout.split('\n')[0]).toMatch(/^PERMISSION +API +IDENTIFIER/);
    expect(person.code).toBe(0);
    expect(person.stderr).toContain('\r\x1b[2K');
    expect(person.stdout).toContain('\x1b[');
  });
});

describe('auth status says that agent mode is on and why', () => {
  it('names the variable and the agent', async () => {
    const env = { ...emu.env, CLAUDECODE: '1' };
    const r = await runCli(['auth', 'status', '-o', 'json'], { env, tty: { stdout: true, stdin: true } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).agent_mode).toEqual({ on: true, variable: 'CLAUDECODE', agent: 'claude-code' });
    const own = await runCli(['auth', 'status', '-o', 'json'], { env: { ...emu.env, SVCADM_AGENT: '1' } });
    expect(JSON.parse(own.stdout).agent_mode).toEqual({ on: true, variable: 'SVCADM_AGENT', agent: null });
    const off = await runCli(['auth', 'status', '-o', 'json'], {
      env: { ...emu.env, CLAUDECODE: '1', SVCADM_AGENT: '0' },
    });
    expect(JSON.parse(off.stdout).agent_mode).toEqual({ on: false, variable: 'SVCADM_AGENT', agent: null });
    const none = await runCli(['auth', 'status', '-o', 'json'], { env: emu.env });
    expect(JSON.parse(none.stdout).agent_mode).toEqual({ on: false, variable: null, agent: null });
  });

  it('a value of SVCADM_AGENT that is neither 1 nor 0 is exit 2, nothing sent', async () => {
    const r = await runCli(['auth', 'status'], { env: { ...emu.env, SVCADM_AGENT: 'yes' } });
    expect(r).toEqual({ code: 2, stdout: '', stderr: "svcadm: SVCADM_AGENT must be 1 or 0, got 'yes'\n" });
    await sentNothing();
  });
});
