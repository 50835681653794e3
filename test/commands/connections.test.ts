import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseDeleteUserOptions } from '../../src/commands/connections/options.js';
import type { InStream } from '../../src/context.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { type RunOptions, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const db = () => emu.fixtures.databaseConnectionId;
const tenant = () => new URL(emu.url).host;

async function deletes(): Promise<
  Array<{ path: string; email: string | null; query: string; cid?: string; status?: number }>
> {
  const { requests } = await emu.requests();
  return requests
    .filter((r) => r.method === 'DELETE')
    .map((r) => ({
      path: r.path,
      query: r.query,
      email: new URLSearchParams(r.query).get('email'),
      cid: r.headers['x-correlation-id'],
      status: r.status,
    }));
}

function del(connection: string, email: string, ...args: string[]): string[] {
  return ['connections', 'delete-user', connection, '--email', email, ...args];
}

describe('connections delete-user: invalid input exits 2 and sends nothing', () => {
  const cases: Array<[string[], string]> = [
    [
      ['connections', 'delete-user', 'con_1', '--yes'],
      "--email is required (<email>) — see 'svcadm connections delete-user --help'",
    ],
    [del('con_1', 'bob', '--yes'), "--email 'bob' is not a valid e-mail address"],
    [del('con_1', 'bob@', '--yes'), "--email 'bob@' is not a valid e-mail address"],
    [del('con_1', '@example.com', '--yes'), "--email '@example.com' is not a valid e-mail address"],
    [del('con_1', 'bob@example', '--yes'), "--email 'bob@example' is not a valid e-mail address"],
    [del('con_1', 'bob smith@example.com', '--yes'), "--email 'bob smith@example.com' is not a valid e-mail address"],
    [del('', 'bob@example.com', '--yes'), 'the connection id must not be empty'],
    [
      del('con_1', 'bob@example.com', '--yes', '--correlation-id', ' padded'),
      '--correlation-id must be visible ASCII characters (spaces only inside)',
    ],
    [
      del('con_1', 'bob@example.com', '--yes', '--correlation-id', 'caf\u00e9'),
      '--correlation-id must be visible ASCII characters (spaces only inside)',
    ],
    [
      del('con_1', 'bob@example.com', '--yes', '--correlation-id', 'x'.repeat(1025)),
      '--correlation-id must be at most 1024 characters, got 1025',
    ],
    [del('con_1', 'bob@example.com'), 'refusing to delete without confirmation: not a terminal — pass --yes to delete'],
  ];
  for (const [argv, message] of cases) {
    it(message, async () => {
      const r = await runCli(argv, { env });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
      const { counters } = await emu.requests();
      expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
    });
  }

  it('an over-long e-mail', async () => {
    const long = `${'a'.repeat(243)}@example.com`;
    expect(long).toHaveLength(255);
    const r = await runCli(del('con_1', long, '--yes'), { env });
    expect(r.code).toBe(2);
    expect((await emu.requests()).counters.interfaceRequests).toBe(0);
  });

  it('refuses off a terminal with the JSON envelope under -o json', async () => {
    const r = await runCli([...del(db(), 'alice@example.com'), '-o', 'json'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      '{"error":{"status":null,"code":"confirmation_required","message":"refusing to delete without confirmation: not a terminal","hint":"pass --yes to delete","exit_code":2}}\n',
    );
    expect(await deletes()).toEqual([]);
  });

  it('parses the options', () => {
    expect(parseDeleteUserOptions('con_1', { email: 'a@b.co', yes: true })).toEqual({
      connectionId: 'con_1',
      email: 'a@b.co',
      yes: true,
      ifExists: false,
      correlationId: undefined,
      dryRun: false,
    });
  });
});

describe('connections delete-user --yes', () => {
  it('deletes, keeps the + of the e-mail, and shows the generated correlation id on stderr', async () => {
    const r = await runCli(del(db(), 'bob+ci@example.com', '--yes'), { env, tty: { stdout: true } });
    const sent = await deletes();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      path: `/api/v2/connections/${db()}/users`,
      query: 'email=bob%2Bci%40example.com',
      email: 'bob+ci@example.com',
      status: 204,
    });
    expect(sent[0]?.cid).toMatch(UUID);
    expect(r).toEqual({
      code: 0,
      stdout: `No user bob+ci@example.com remains in connection ${db()}\n`,
      stderr: `Correlation id: ${sent[0]?.cid}\n`,
    });
    // The service is idempotent: a second delete answers the same 204, and svcadm says the same.
    const again = await runCli(del(db(), 'bob+ci@example.com', '--yes'), { env, tty: { stdout: true } });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`No user bob+ci@example.com remains in connection ${db()}\n`);
  });

  it('prints the JSON result with the given correlation id', async () => {
    const r = await runCli(
      [...del(db(), "o'neil@example.com", '--yes', '--correlation-id', 'ci-run-42'), '-o', 'json'],
      {
        env,
      },
    );
    expect(r).toEqual({
      code: 0,
      stderr: '{"correlation_id":"ci-run-42"}\n',
      stdout: `{\n  "connection_id": "${db()}",\n  "email": "o'neil@example.com",\n  "outcome": "gone",\n  "status": 204,\n  "correlation_id": "ci-run-42"\n}\n`,
    });
    expect(await deletes()).toMatchObject([{ email: "o'neil@example.com", cid: 'ci-run-42', status: 204 }]);
  });

  it('prints one compact line under -o ndjson', async () => {
    const r = await runCli([...del(db(), 'alice@example.com', '-y', '--correlation-id', 'c1'), '-o', 'ndjson'], {
      env,
    });
    expect(r).toEqual({
      code: 0,
      stderr: '{"correlation_id":"c1"}\n',
      stdout: `{"connection_id":"${db()}","email":"alice@example.com","outcome":"gone","status":204,"correlation_id":"c1"}\n`,
    });
  });

  it('sends every reserved character of the e-mail intact', async () => {
    const email = "x+y&z=1%41#?/!*'()~@example.com";
    const r = await runCli([...del(db(), email, '--yes', '--if-exists'), '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'gone', status: 204, email });
    const [sent] = await deletes();
    expect(sent?.email).toBe(email);
    // encodeURIComponent's output; Node's URL may further escape a quote as %27, which decodes the same.
    expect(sent?.query.replace(/%27/g, "'")).toBe(`email=${encodeURIComponent(email)}`);
    expect(sent?.query).toContain('%2B');
    expect(sent?.query).toContain('%26');
    expect(sent?.query).toContain('%23');
  });

  it('warns that only 64 characters are logged, and sends the whole id', async () => {
    const cid = `${'a'.repeat(60)}-bcdefghij`;
    const r = await runCli([...del(db(), 'alice@example.com', '--yes', '--correlation-id', cid), '-o', 'json'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `svcadm: warning: the correlation id is 70 characters; the tenant logs only the first 64: ${'a'.repeat(60)}-bcd\n{"correlation_id":"${cid}"}\n`,
    );
    expect(JSON.parse(r.stdout).correlation_id).toBe(cid);
    expect((await deletes())[0]?.cid).toBe(cid);
  });

  it('does not warn at exactly 64 characters', async () => {
    const r = await runCli(del(db(), 'alice@example.com', '--yes', '--correlation-id', 'c'.repeat(64)), { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Correlation id: ${'c'.repeat(64)}\n`);
  });

  it('an unknown e-mail is gone too, never "deleted" (api-notes: delete is idempotent, 204 either way)', async () => {
    const r = await runCli([...del(db(), 'ghost@example.com', '--yes', '--correlation-id', 'i1'), '-o', 'json'], {
      env,
    });
    expect(r).toEqual({
      code: 0,
      stderr: '{"correlation_id":"i1"}\n',
      stdout: `{\n  "connection_id": "${db()}",\n  "email": "ghost@example.com",\n  "outcome": "gone",\n  "status": 204,\n  "correlation_id": "i1"\n}\n`,
    });
  });

  it('--if-exists turns a 404 for the user into "no change" (a service that answers inexistent_user)', async () => {
    await emu.updateSettings({ unknownUserDeleteStatus: 404 });
    const table = await runCli(del(db(), 'ghost@example.com', '--yes', '--if-exists', '--correlation-id', 'g1'), {
      env,
      tty: { stdout: true },
    });
    expect(table).toEqual({
      code: 0,
      stdout: `No change: no user ghost@example.com in connection ${db()}\n`,
      stderr: 'Correlation id: g1\n',
    });
    const json = await runCli(
      [...del(db(), 'ghost@example.com', '--yes', '--if-exists', '--correlation-id', 'g2'), '-o', 'json'],
      { env },
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      connection_id: db(),
      email: 'ghost@example.com',
      outcome: 'not_found',
      status: 404,
      correlation_id: 'g2',
    });
  });

  it('exits 5 for a 404 for the user without --if-exists, naming the correlation id', async () => {
    await emu.updateSettings({ unknownUserDeleteStatus: 404 });
    const r = await runCli(del(db(), 'ghost@example.com', '--yes', '--correlation-id', 'g3'), { env });
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: `Correlation id: g3\nsvcadm: user ghost@example.com in connection ${db()} not found: The user does not exist. — correlation id g3\n`,
    });
  });

  it('exits 5 for an unknown connection even with --if-exists (api-notes: 404 only for an unknown connection)', async () => {
    const r = await runCli(
      [...del('con_nope', 'alice@example.com', '--yes', '--if-exists', '--correlation-id', 'g4'), '-o', 'json'],
      { env },
    );
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: `{"correlation_id":"g4"}\n{"error":{"status":404,"code":"inexistent_connection","message":"connection con_nope not found: The connection does not exist","hint":"\`svcadm --domain ${emu.url} -o json connections list --strategy auth0\` shows the database connections; correlation id g4","exit_code":5}}\n`,
    });
  });

  it('exits 8 with the service message for a non-database connection (api-notes: database connections only)', async () => {
    const id = emu.fixtures.nonDatabaseConnectionId;
    const r = await runCli(del(id, 'alice@example.com', '--yes', '--correlation-id', 'g5'), { env });
    expect(r).toEqual({
      code: 8,
      stdout: '',
      stderr: `Correlation id: g5\nsvcadm: the service rejected the request: Connection must be a database connection — only a database connection holds users to delete: \`svcadm --domain ${emu.url} connections list --strategy auth0\` lists them; correlation id g5\n`,
    });
  });

  it('retries a 429 with the same correlation id', async () => {
    await emu.rateLimitNext('/connections', 1, 0);
    const r = await runCli(del(db(), 'alice@example.com', '--yes', '--correlation-id', 'r1'), { env });
    expect(r.code).toBe(0);
    expect((await deletes()).map((d) => [d.status, d.cid])).toEqual([
      [429, 'r1'],
      [204, 'r1'],
    ]);
  });

  it('retries a 503 with the same correlation id: the delete is idempotent (api-notes, round 3)', async () => {
    await emu.failNext({ path: '/connections', status: 503 });
    const r = await runCli(del(db(), 'alice@example.com', '--yes', '--correlation-id', 'r2'), { env });
    expect(r).toEqual({ code: 0, stdout: r.stdout, stderr: 'Correlation id: r2\n' });
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'gone', status: 204, correlation_id: 'r2' });
    expect((await deletes()).map((d) => [d.status, d.cid])).toEqual([
      [503, 'r2'],
      [204, 'r2'],
    ]);
  });
});

describe('connections delete-user on a terminal', () => {
  /** Runs with terminal stdin/stderr and types `answer` once the question is on stderr (or ends stdin). */
  async function withAnswer(argv: string[], answer: string | null, extra: RunOptions = {}) {
    const stdin = new PassThrough() as PassThrough & InStream;
    let asked = false;
    const result = await runCli(argv, {
      env,
      tty: { stdin: true, stderr: true, ...extra.tty },
      stdinStream: stdin,
      onStderr: (chunk) => {
        if (asked || !chunk.includes('[y/N] ')) return;
        asked = true;
        if (answer === null) stdin.end();
        else stdin.write(`${answer}\n`);
      },
    });
    return { ...result, asked };
  }

  const question = (email: string) => `Delete ${email} from connection ${db()} on ${tenant()}? [y/N] `;

  for (const answer of ['y', 'yes', 'Y', ' YES ']) {
    it(`deletes when the answer is '${answer}'`, async () => {
      const r = await withAnswer(del(db(), 'bob+ci@example.com', '--correlation-id', 'p1'), answer, {
        tty: { stdout: true },
      });
      expect(r).toEqual({
        code: 0,
        asked: true,
        stdout: `No user bob+ci@example.com remains in connection ${db()}\n`,
        stderr: `${question('bob+ci@example.com')}Correlation id: p1\n`,
      });
      expect(await deletes()).toMatchObject([{ email: 'bob+ci@example.com', status: 204 }]);
    });
  }

  for (const answer of ['n', 'no', '', 'yy', 'sure']) {
    it(`sends nothing when the answer is '${answer}'`, async () => {
      const r = await withAnswer(del(db(), 'bob+ci@example.com'), answer);
      expect(r).toEqual({
        code: 2,
        asked: true,
        stdout: '',
        stderr: `${question('bob+ci@example.com')}svcadm: not confirmed: nothing was deleted\n`,
      });
      expect(await deletes()).toEqual([]);
    });
  }

  // Issue 29, point 3: the end of input (Ctrl-D) is a no, not an interruption.
  it('sends nothing and exits 2 (not confirmed) when input ends without an answer', async () => {
    const r = await withAnswer(del(db(), 'alice@example.com'), null);
    expect(r).toMatchObject({
      code: 2,
      asked: true,
      stderr: `${question('alice@example.com')}\nsvcadm: not confirmed: nothing was deleted\n`,
    });
    expect(await deletes()).toEqual([]);
  });

  it('does not ask with --yes', async () => {
    const r = await withAnswer(del(db(), 'alice@example.com', '--yes', '--correlation-id', 'p2'), 'n', {
      tty: { stdout: true },
    });
    expect(r).toMatchObject({ code: 0, asked: false, stderr: 'Correlation id: p2\n' });
  });
});
