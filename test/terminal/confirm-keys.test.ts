import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { requireProgram } from '../helpers/requires.js';
import { BIN, tempConfigDir } from '../helpers/run-cli.js';
import { openTerminal } from '../helpers/tmux.js';

// Issue 29, point 3: at a [y/N] question in a real pseudo-terminal, Ctrl-C interrupts at once (exit 130) and Ctrl-D
// answers no (exit 2); either way the emulator's request log shows that nothing was sent.

const tmux = requireProgram('tmux');

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

async function askedToDelete() {
  const terminal = await openTerminal(
    [
      process.execPath,
      BIN,
      'connections',
      'delete-user',
      emu.fixtures.databaseConnectionId,
      '--email',
      'bob+ci@example.com',
    ],
    { columns: 200, rows: 20, env: { ...emu.env, SVCADM_CONFIG_DIR: configDir } },
  );
  const host = new URL(emu.url).host;
  const question = `Delete bob+ci@example.com from connection ${emu.fixtures.databaseConnectionId} on ${host}? [y/N]`;
  await terminal.waitFor((screen) => screen.includes('[y/N]'));
  return { terminal, question };
}

/** Nothing but the reads that word the question (who has the address) was sent. */
async function sentNothing(): Promise<void> {
  const { requests } = await emu.requests();
  expect(requests.filter((r) => r.kind === 'interface' && r.method !== 'GET')).toEqual([]);
}

describe.skipIf(tmux.missing)(tmux.title('a [y/N] question in a pseudo-terminal'), () => {
  it('Ctrl-C interrupts at once: "interrupted", exit 130, no DELETE sent', async () => {
    const { terminal, question } = await askedToDelete();
    try {
      await terminal.keys('C-c');
      expect(await terminal.exited()).toBe(130);
      expect(await terminal.screen()).toBe(`${question} ^C\nsvcadm: interrupted`);
    } finally {
      await terminal.close();
    }
    await sentNothing();
  });

  it('a line typed after Ctrl-C is not taken as the answer', async () => {
    const { terminal, question } = await askedToDelete();
    try {
      await terminal.keys('C-c');
      await terminal.keys('y', 'Enter');
      expect(await terminal.exited()).toBe(130);
      // The terminal echoes the typed line whenever it comes, before or after svcadm's last line: not compared.
      const screen = await terminal.screen();
      expect(screen.startsWith(`${question} ^C`)).toBe(true);
      expect(screen).toContain('svcadm: interrupted');
      expect(screen).not.toContain('Correlation id');
    } finally {
      await terminal.close();
    }
    await sentNothing();
  });

  it('Ctrl-D answers no: "not confirmed", exit 2, no DELETE sent', async () => {
    const { terminal, question } = await askedToDelete();
    try {
      await terminal.keys('C-d');
      expect(await terminal.exited()).toBe(2);
      expect(await terminal.screen()).toBe(`${question}\nsvcadm: not confirmed: nothing was deleted`);
    } finally {
      await terminal.close();
    }
    await sentNothing();
  });
});
