import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { BIN, runBin, tempConfigDir } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator();
  env = { ...emu.env, SVCADM_CONFIG_DIR: tempConfigDir() };
});
afterAll(async () => {
  await emu.close();
});

describe('bin/svcadm.js as a process', () => {
  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await runBin(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('gets a policy as JSON and exits 0', async () => {
    const id = emu.fixtures.policyIdByAction.block;
    const r = await runBin(['policies', 'get', id], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ id, configuration: { action: 'block', limit: 100 } });
  });

  it('exits 5 with one line on stderr for a missing policy', async () => {
    expect(await runBin(['policies', 'get', 'rlp_nope'], env)).toEqual({
      code: 5,
      stdout: '',
      stderr: `svcadm: rate limit policy not found: The rate limit policy does not exist. — \`svcadm --domain ${emu.url} policies list\` shows the ids\n`,
    });
  });

  it('exits 2 for a usage error, without a stack trace', async () => {
    const r = await runBin(['policies', 'get'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("svcadm: missing required argument 'id' — see 'svcadm policies get --help'\n");
  });

  it('exits quietly with 0 when the reader of stdout goes away', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'ndjson'],
      {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
