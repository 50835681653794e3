import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';
import { connectMcp } from '../mcp/helpers.js';

// Issue 29 point 13: `connections delete-user --dry-run` and the MCP tool's `dry_run` share one preview
// (api/delete-preview.ts): reads only, no question, who would be deleted.

let emu: TestEmulator;
let env: Record<string, string>;
withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' }, emulator: { eventRate: 0 } });

const ALICE_ID = 'db|user-0001';
const db = () => emu.fixtures.databaseConnectionId;
const writes = async () => (await emu.requests()).requests.filter((q) => q.method === 'DELETE');

describe('connections delete-user --dry-run', () => {
  it('prints who would be deleted, asks nothing off a terminal, sends no DELETE: exit 0', async () => {
    const r = await runCli(
      ['connections', 'delete-user', db(), '--email', 'alice@example.com', '--dry-run', '-o', 'table'],
      { env },
    );
    expect(r).toEqual({
      code: 0,
      stdout: `Would delete user ${ALICE_ID} (alice@example.com) from connection ${db()} (Username-Password-Authentication)\nDry run: nothing was deleted\n`,
      stderr: '',
    });
    expect(await writes()).toEqual([]);
  });

  it('-o json: the preview as data', async () => {
    const r = await runCli(
      ['connections', 'delete-user', db(), '--email', 'alice@example.com', '--dry-run', '-o', 'json'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      connection_id: db(),
      connection_name: 'Username-Password-Authentication',
      email: 'alice@example.com',
      users: [{ user_id: ALICE_ID, email: 'alice@example.com' }],
      outcome: 'would_delete',
    });
  });

  it('no user has the e-mail in that connection: exit 5, nothing sent', async () => {
    const r = await runCli(['connections', 'delete-user', db(), '--email', 'nobody@example.com', '--dry-run'], { env });
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: `svcadm: no user has the e-mail nobody@example.com in connection ${db()}\n`,
    });
    expect(await writes()).toEqual([]);
  });

  it('a connection that is not a database connection: exit 8, pointing to the database connections', async () => {
    const other = emu.fixtures.nonDatabaseConnectionId;
    const r = await runCli(['connections', 'delete-user', other, '--email', 'alice@example.com', '--dry-run'], {
      env,
    });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^svcadm: connection ${other} is not a database connection \\(strategy [a-z0-9-]+\\) — list the database connections: svcadm .*connections list --strategy auth0\\n$`,
      ),
    );
    expect(await writes()).toEqual([]);
  });

  it('a connection that does not exist: exit 5', async () => {
    const r = await runCli(['connections', 'delete-user', 'con_nope', '--email', 'alice@example.com', '--dry-run'], {
      env,
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^svcadm: connection con_nope not found — list the database connections: svcadm /);
    expect(await writes()).toEqual([]);
  });
});

describe('delete_connection_user with dry_run', () => {
  it('says who would be deleted, asks nothing and sends no DELETE', async () => {
    const s = await connectMcp(['mcp', '--allow-writes'], env, () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    try {
      const r = await s.client.callTool({
        name: 'delete_connection_user',
        arguments: { connection_id: db(), email: 'alice@example.com', dry_run: true },
      });
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent).toEqual({
        connection_id: db(),
        connection_name: 'Username-Password-Authentication',
        email: 'alice@example.com',
        users: [{ user_id: ALICE_ID, email: 'alice@example.com' }],
        outcome: 'would_delete',
      });
      expect((r.content as { text: string }[])[0]?.text).toMatch(
        `Would delete user ${ALICE_ID} (alice@example.com) from connection ${db()} (Username-Password-Authentication)\nDry run: nothing was deleted. `,
      );
      expect(s.questions).toEqual([]);
      const missing = await s.client.callTool({
        name: 'delete_connection_user',
        arguments: { connection_id: 'con_nope', email: 'alice@example.com', dry_run: true },
      });
      expect(JSON.parse((missing.content as { text: string }[])[1]?.text ?? '')).toEqual({
        error: {
          status: null,
          code: 'not_found',
          message: 'connection con_nope not found',
          hint: 'list the database connections with list_connections and strategy ["auth0"]',
          exit_code: 5,
        },
      });
      expect(await writes()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
