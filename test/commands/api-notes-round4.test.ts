// The service as api-notes.md "Revised in round 4" describes it, in svcadm and in the emulator.
import { describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { json, loopbackPerTest } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;
withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });
const loopback = loopbackPerTest();

describe('event ids', () => {
  it('are not checked for a length: the emulator sends evt_ + 16 and evt_ + 22, and the tail shows both', async () => {
    const ids = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '8', '-o', 'raw', '--query', 'event.id'],
      {
        env,
      },
    );
    expect(ids.code).toBe(0);
    const lengths = new Set(
      ids.stdout
        .trim()
        .split('\n')
        .map((id) => id.length),
    );
    expect([...lengths].sort()).toEqual([20, 26]);
    const lines = await runCli(['events', 'tail', '--since', '7d', '--max-events', '8', '-o', 'table'], { env });
    expect(lines.code).toBe(0);
    for (const id of ids.stdout.trim().split('\n')) expect(lines.stdout).toContain(`  ${id}  `);
  });
});

describe('a permission without sources', () => {
  it('is an empty SOURCE cell, never an error', async () => {
    const server = await loopback([
      json(200, [
        { permission_name: 'read:a', resource_server_identifier: 'https://a', resource_server_name: 'A' },
        {
          permission_name: 'read:b',
          resource_server_identifier: 'https://b',
          resource_server_name: 'B',
          sources: [{ source_type: 'DIRECT' }],
        },
      ]),
    ]);
    const r = await runCli(['users', 'permissions', 'db|u1', '-o', 'table'], { env: givenTokenEnv(server.url) });
    expect(r).toEqual({
      code: 0,
      stdout: [
        'PERMISSION  API  IDENTIFIER  SOURCE  DESCRIPTION',
        'read:a      A    https://a   -       -',
        'read:b      B    https://b   direct  -',
        '',
      ].join('\n'),
      stderr: '',
    });
  });
});

describe('a permission without sources, from the emulator (permissionSources: false)', () => {
  it('lists with an empty SOURCE cell; the JSON is as sent, without sources', async () => {
    await emu.updateSettings({ permissionSources: false });
    const user = emu.fixtures.userId;
    const body = await runCli(['users', 'permissions', user, '-o', 'json'], { env });
    expect(body.code).toBe(0);
    const items = JSON.parse(body.stdout) as Record<string, unknown>[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((p) => 'sources' in p)).toBe(false);
    const table = await runCli(['users', 'permissions', user, '-o', 'wide'], { env });
    expect(table.code).toBe(0);
    const [heading, ...rows] = table.stdout.trim().split('\n');
    const at = heading?.indexOf('SOURCE') ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(rows.every((row) => row.slice(at).startsWith('- '))).toBe(true);
    const all = await runCli(['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'ndjson'], { env });
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n')).toHaveLength(1201);
  });
});

describe('users find', () => {
  it('is case-sensitive in the emulator, as the service is, and says so when capitals found nothing', async () => {
    const found = await runCli(['users', 'find', '--email', 'alice@example.com', '-o', 'json'], { env });
    expect(JSON.parse(found.stdout).length).toBeGreaterThan(0);
    const r = await runCli(['users', 'find', '--email', 'Alice@Example.com', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
    expect(r.stderr).toBe(
      `The service matches e-mails case-sensitively; in lower case: svcadm --domain ${emu.url} -o json users find --email alice@example.com\n`,
    );
    const table = await runCli(['users', 'find', '--email', 'Nobody@example.com', '-o', 'table'], { env });
    expect(table.stderr).toBe(
      'No user has the e-mail Nobody@example.com.\n' +
        `The service matches e-mails case-sensitively; in lower case: svcadm --domain ${emu.url} -o table users find --email nobody@example.com\n`,
    );
    const quiet = await runCli(['users', 'find', '--email', 'Alice@Example.com', '-o', 'json', '-q'], { env });
    expect(quiet).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
    const lower = await runCli(['users', 'find', '--email', 'nobody@example.com', '-o', 'json'], { env });
    expect(lower).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
  });
});

describe('DELETE /connections/{id}/users', () => {
  it('answered 200 with an empty body (a recorded mock) is a success, as 204 is', async () => {
    await emu.updateSettings({ deleteUserStatus: 200 });
    const db = emu.fixtures.databaseConnectionId;
    const r = await runCli(['connections', 'delete-user', db, '--email', 'bob+ci@example.com', '--yes', '-o', 'json'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'gone', status: 200 });
  });
});

describe('provisionings list -o wide', () => {
  it('shows synchronize_groups as SYNC GROUPS', async () => {
    const body = JSON.parse((await runCli(['provisionings', 'list', '--take', '3', '-o', 'json'], { env })).stdout);
    const r = await runCli(['provisionings', 'list', '--take', '3', '-o', 'wide'], { env });
    expect(r.code).toBe(0);
    const [heading, ...rows] = r.stdout.trim().split('\n');
    const at = heading?.indexOf('SYNC GROUPS') ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(rows.map((row) => row.slice(at).split(' ')[0])).toEqual(
      body.directory_provisionings.map((p: { synchronize_groups: string }) => p.synchronize_groups),
    );
  });
});
