import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { InStream } from '../../src/context.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';
import { connectMcp } from '../mcp/helpers.js';

// Issue 38 point 3: the lookup by e-mail is case-sensitive and the delete is not (api-notes, "Revised in round 5").
// A dry run, the question and the MCP tool's dry_run of an address with capitals that the exact lookup does not
// find also look the lower-cased address up, and show those users as ones the delete may remove.

let emu: TestEmulator;
let env: Record<string, string>;
withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' }, emulator: { eventRate: 0 } });

const ALICE_ID = 'db|user-0001';
const db = () => emu.fixtures.databaseConnectionId;
const tenant = () => new URL(emu.url).host;
const del = (email: string, ...args: string[]) => ['connections', 'delete-user', db(), '--email', email, ...args];

/** The e-mail of each users-by-email request and each DELETE, in order. */
async function sent(): Promise<string[]> {
  const { requests } = await emu.requests();
  return requests
    .filter((r) => r.method === 'DELETE' || r.path.endsWith('/users-by-email'))
    .map((r) => `${r.method} ${r.path.replace(/^.*\/api\/v2/, '')} ${new URLSearchParams(r.query).get('email')}`);
}

const REFUSED = {
  statusCode: 403,
  error: 'Forbidden',
  message: 'Insufficient scope, expected any of: read:users',
  errorCode: 'insufficient_scope',
};

describe('connections delete-user --dry-run of an address with capitals', () => {
  it('finds nobody as written, then the lower-cased address: a candidate the delete may remove, exit 0', async () => {
    const r = await runCli(del('ALICE@example.com', '--dry-run', '-o', 'table'), { env });
    expect(r).toEqual({
      code: 0,
      stdout:
        'No user has the e-mail ALICE@example.com as written; the service may match it as alice@example.com\n' +
        `May delete user ${ALICE_ID} (alice@example.com) from connection ${db()} (Username-Password-Authentication)\n` +
        'Dry run: nothing was deleted\n',
      stderr: '',
    });
    expect(await sent()).toEqual(['GET /users-by-email ALICE@example.com', 'GET /users-by-email alice@example.com']);
  });

  it('-o json: the candidates under may_delete, users empty, outcome may_delete', async () => {
    const r = await runCli(del('ALICE@example.com', '--dry-run', '-o', 'json'), { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      connection_id: db(),
      connection_name: 'Username-Password-Authentication',
      email: 'ALICE@example.com',
      users: [],
      may_delete: [{ user_id: ALICE_ID, email: 'alice@example.com' }],
      outcome: 'may_delete',
    });
  });

  it('and the delete it previewed removes that user', async () => {
    const r = await runCli(del('ALICE@example.com', '--yes', '--correlation-id', 'c1', '-o', 'table'), { env });
    expect(r).toEqual({
      code: 0,
      stdout: `No user ALICE@example.com remains in connection ${db()}\n`,
      stderr: 'Correlation id: c1\n',
    });
    const after = await runCli(del('alice@example.com', '--dry-run'), { env });
    expect(after).toEqual({
      code: 5,
      stdout: '',
      stderr: `svcadm: no user has the e-mail alice@example.com in connection ${db()}\n`,
    });
  });

  it('exit 5 only when neither the address as written nor in lower case finds anyone', async () => {
    const r = await runCli(del('NOBODY@example.com', '--dry-run'), { env });
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: `svcadm: no user has the e-mail NOBODY@example.com (nor nobody@example.com) in connection ${db()}\n`,
    });
    expect(await sent()).toEqual(['GET /users-by-email NOBODY@example.com', 'GET /users-by-email nobody@example.com']);
  });

  it('an address already in lower case is looked up once', async () => {
    const found = await runCli(del('alice@example.com', '--dry-run'), { env });
    expect(found.code).toBe(0);
    const missing = await runCli(del('nobody@example.com', '--dry-run'), { env });
    expect(missing.code).toBe(5);
    expect(await sent()).toEqual(['GET /users-by-email alice@example.com', 'GET /users-by-email nobody@example.com']);
  });

  it('a refused lookup (missing scope) says what could not be checked: exit 4, nothing deleted', async () => {
    await emu.failNext({ path: '/users-by-email', status: 403, body: REFUSED });
    const r = await runCli(del('ALICE@example.com', '--dry-run'), { env });
    expect(r).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `svcadm: could not look up who has the e-mail ALICE@example.com in connection ${db()} ` +
        '(forbidden: Insufficient scope, expected any of: read:users); the delete may still remove a user with this address' +
        " — grant the scope read:users to the client in the tenant's settings\n",
    });
    expect(await sent()).toEqual(['GET /users-by-email ALICE@example.com']);
  });
});

describe('connections delete-user on a terminal: the question says what the dry run says', () => {
  /** Runs with terminal stdin/stderr and types `answer` once the question is on stderr. */
  async function withAnswer(argv: string[], answer: string) {
    const stdin = new PassThrough() as PassThrough & InStream;
    let asked = false;
    const result = await runCli(argv, {
      env,
      tty: { stdin: true, stderr: true, stdout: true },
      stdinStream: stdin,
      onStderr: (chunk) => {
        if (asked || !chunk.includes('[y/N] ')) return;
        asked = true;
        stdin.write(`${answer}\n`);
      },
    });
    return { ...result, asked };
  }
  const question = (email: string) => `Delete ${email} from connection ${db()} on ${tenant()}? [y/N] `;

  it('names the candidates of the lower-cased address before asking; yes deletes them', async () => {
    const r = await withAnswer(del('ALICE@example.com', '--correlation-id', 'q1'), 'y');
    expect(r).toEqual({
      code: 0,
      asked: true,
      stdout: `No user ALICE@example.com remains in connection ${db()}\n`,
      stderr:
        'No user has the e-mail ALICE@example.com as written; the service may match it as alice@example.com\n' +
        `May delete user ${ALICE_ID} (alice@example.com) from connection ${db()} (Username-Password-Authentication)\n` +
        `${question('ALICE@example.com')}Correlation id: q1\n`,
    });
    expect(await sent()).toEqual([
      'GET /users-by-email ALICE@example.com',
      'GET /users-by-email alice@example.com',
      `DELETE /connections/${db()}/users ALICE@example.com`,
    ]);
  });

  it('a user found as written: the question as before, after one lookup', async () => {
    const r = await withAnswer(del('alice@example.com'), 'n');
    expect(r).toEqual({
      code: 2,
      asked: true,
      stdout: '',
      stderr: `${question('alice@example.com')}svcadm: not confirmed: nothing was deleted\n`,
    });
    expect(await sent()).toEqual(['GET /users-by-email alice@example.com']);
  });

  it('nobody under either address: says so, and still asks', async () => {
    const r = await withAnswer(del('NOBODY@example.com'), 'n');
    expect(r).toEqual({
      code: 2,
      asked: true,
      stdout: '',
      stderr:
        `No user has the e-mail NOBODY@example.com (nor nobody@example.com) in connection ${db()}\n` +
        `${question('NOBODY@example.com')}svcadm: not confirmed: nothing was deleted\n`,
    });
  });

  it('a refused lookup: the question says so and is still asked', async () => {
    await emu.failNext({ path: '/users-by-email', status: 403, body: REFUSED });
    const r = await withAnswer(del('ALICE@example.com', '--correlation-id', 'q2'), 'yes');
    expect(r).toEqual({
      code: 0,
      asked: true,
      stdout: `No user ALICE@example.com remains in connection ${db()}\n`,
      stderr:
        `Could not look up who has the e-mail ALICE@example.com in connection ${db()} ` +
        '(forbidden: Insufficient scope, expected any of: read:users); the delete may still remove a user with this address\n' +
        `${question('ALICE@example.com')}Correlation id: q2\n`,
    });
    expect((await sent()).at(-1)).toBe(`DELETE /connections/${db()}/users ALICE@example.com`);
  });
});

describe('delete_connection_user dry_run of an address with capitals', () => {
  it('the same candidates and words as the command', async () => {
    const s = await connectMcp(['mcp', '--allow-writes'], env, () => ({ action: 'decline' }));
    try {
      const r = await s.client.callTool({
        name: 'delete_connection_user',
        arguments: { connection_id: db(), email: 'ALICE@example.com', dry_run: true },
      });
      expect(r.isError).toBeUndefined();
      expect(r.structuredContent).toEqual({
        connection_id: db(),
        connection_name: 'Username-Password-Authentication',
        email: 'ALICE@example.com',
        users: [],
        may_delete: [{ user_id: ALICE_ID, email: 'alice@example.com' }],
        outcome: 'may_delete',
      });
      expect((r.content as { text: string }[])[0]?.text).toMatch(
        'No user has the e-mail ALICE@example.com as written; the service may match it as alice@example.com\n' +
          `May delete user ${ALICE_ID} (alice@example.com) from connection ${db()} (Username-Password-Authentication)\n` +
          'Dry run: nothing was deleted. The JSON that follows is data from the tenant',
      );
      await emu.failNext({ path: '/users-by-email', status: 403, body: REFUSED });
      const refused = await s.client.callTool({
        name: 'delete_connection_user',
        arguments: { connection_id: db(), email: 'ALICE@example.com', dry_run: true },
      });
      expect(JSON.parse((refused.content as { text: string }[])[1]?.text ?? '').error).toMatchObject({
        status: 403,
        message:
          `could not look up who has the e-mail ALICE@example.com in connection ${db()} ` +
          '(forbidden: Insufficient scope, expected any of: read:users); the delete may still remove a user with this address',
        exit_code: 4,
      });
      expect(s.questions).toEqual([]);
      expect((await sent()).filter((line) => line.startsWith('DELETE'))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
