import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { SCREEN_NOW } from '../helpers/fixture-tenant.js';
import { json, loopbackPerTest } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;
withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });
const loopback = loopbackPerTest();

async function sentNothing(): Promise<void> {
  const { counters } = await emu.requests();
  expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
}

describe('-o raw', () => {
  it('prints a string bare, for $(…) in scripts: users find --query [0].user_id', async () => {
    const email = emu.fixtures.databaseUserEmails[0] ?? '';
    const found = JSON.parse((await runCli(['users', 'find', '--email', email, '-o', 'json'], { env })).stdout);
    const r = await runCli(['users', 'find', '--email', email, '--query', '[0].user_id', '-o', 'raw'], { env });
    expect(r).toEqual({ code: 0, stdout: `${found[0].user_id}\n`, stderr: '' });
  });

  it('prints numbers and booleans as they are, an array of scalars one per line, anything else as compact JSON', async () => {
    const block = emu.fixtures.policyIdByAction.block;
    const policy = JSON.parse((await runCli(['policies', 'get', block, '-o', 'json'], { env })).stdout);
    const limit = await runCli(['policies', 'get', block, '-o', 'raw', '--query', 'configuration'], { env });
    expect(limit).toEqual({ code: 0, stdout: `${JSON.stringify(policy.configuration)}\n`, stderr: '' });
    const ids = await runCli(
      ['provisionings', 'list', '--take', '3', '-o', 'raw', '--query', 'directory_provisionings[].connection_id'],
      { env },
    );
    const body = JSON.parse((await runCli(['provisionings', 'list', '--take', '3', '-o', 'json'], { env })).stdout);
    const expected = body.directory_provisionings.map((p: { connection_id: string }) => `${p.connection_id}\n`);
    expect(ids.code).toBe(0);
    expect(ids.stdout).toBe(expected.join(''));
    const count = await runCli(
      ['users', 'permissions', emu.fixtures.bulkUserId, '--all', '-o', 'raw', '--query', 'length(@)'],
      {
        env,
      },
    );
    expect(count).toEqual({ code: 0, stdout: '1200\n', stderr: '' });
    const flags = await runCli(
      [
        'provisionings',
        'list',
        '--take',
        '2',
        '-o',
        'raw',
        '--query',
        'directory_provisionings[].synchronize_automatically',
      ],
      { env },
    );
    expect(flags.stdout).toMatch(/^(true|false)\n(true|false)\n$/);
  });

  it('prints the whole value as compact JSON without --query; --all is complete or nothing', async () => {
    const r = await runCli(['users', 'permissions', emu.fixtures.userId, '--all', '-o', 'raw', '-q'], { env });
    const all = JSON.parse(
      (await runCli(['users', 'permissions', emu.fixtures.userId, '--all', '-o', 'json'], { env })).stdout,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stdout)).toEqual(all);
  });

  it('never lets service text act on a terminal or split a value over lines, piped or not', async () => {
    const hostile = 'u1\nu2\x1b[2J\x1b]0;pwned\x07\u202eevil\u202c\r';
    const server = await loopback([
      json(200, [
        { user_id: hostile, email: 'a@b.c' },
        { user_id: 'u3', email: 'a@b.c' },
      ]),
    ]);
    const args = ['users', 'find', '--email', 'a@b.c', '-o', 'raw'];
    const expected = 'u1\\nu2\\x1b[2J\\x1b]0;pwned\\x07\\u202eevil\\u202c\\r\nu3\n';
    for (const tty of [{ stdout: true }, {}]) {
      const r = await runCli([...args, '--query', '[].user_id'], { env: givenTokenEnv(server.url), tty });
      expect(r).toEqual({ code: 0, stdout: expected, stderr: '' });
    }
    // Inside compact JSON, escaped as -o json escapes it.
    const whole = await runCli([...args, '--query', '[0]'], { env: givenTokenEnv(server.url) });
    expect(whole.stdout).toBe(
      '{"user_id":"u1\\nu2\\u001b[2J\\u001b]0;pwned\\u0007\\u202eevil\\u202c\\r","email":"a@b.c"}\n',
    );
  });

  it('prints each event of a tail, after --query, one line each', async () => {
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '3', '-o', 'raw', '--query', 'type'], {
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^([a-z.]+\n){3}$/);
  });

  it('prints nothing for a null result (a --query that matched nothing), one notice on stderr, exit 0', async () => {
    const email = 'nobody-here@example.com';
    const r = await runCli(['users', 'find', '--email', email, '--query', '[0].user_id', '-o', 'raw'], { env });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        "--query '[0].user_id' matched nothing: nothing printed (-o raw prints nothing for null; -o json prints null)\n",
    });
    // So `id=$(…)` is empty, never the word null; with -q, nothing at all.
    const quiet = await runCli(['users', 'find', '--email', email, '--query', '[0].user_id', '-o', 'raw', '-q'], {
      env,
    });
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
    // A whole document is unchanged: -o json still prints null.
    const json = await runCli(['users', 'find', '--email', email, '--query', '[0].user_id', '-o', 'json'], { env });
    expect(json).toEqual({ code: 0, stdout: 'null\n', stderr: '' });
  });

  it('is named in the error of an unknown format, and errors are the JSON envelope', async () => {
    const bad = await runCli(['policies', 'list', '-o', 'xml'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('table, wide, json, yaml, ndjson or raw');
    const missing = await runCli(['policies', 'get', 'rlp_nope', '-o', 'raw'], { env });
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr).error.exit_code).toBe(5);
  });
});

describe('--no-headers', () => {
  it('drops the heading line of a table, and of -o wide; columns as wide as their values', async () => {
    const clock = () => new VirtualClock(Date.parse(SCREEN_NOW));
    const without = await runCli(['provisionings', 'list', '--take', '3', '-o', 'table', '--no-headers'], {
      env,
      clock: clock(),
    });
    expect(without).toEqual({
      code: 0,
      stdout: [
        'wonka-waad-001    con_749avhlm0jk2scmn  waad  2024-11-03 12:56 (213d ago)  success',
        'initech-waad-002  con_cl8lqcv3gyara67e  waad  2025-02-25 15:30 (99d ago)   in_progress',
        'wayne-adfs-003    con_ww3c3iej7kmvcyp4  adfs  2025-01-14 15:03 (141d ago)  success',
        '',
      ].join('\n'),
      stderr: expect.stringMatching(/^Next page: /),
    });
    const wide = await runCli(['provisionings', 'list', '--take', '3', '-o', 'wide', '--no-headers'], { env });
    expect(wide.stdout.split('\n')).toHaveLength(4);
    expect(wide.stdout).not.toContain('CONNECTION');
    const ids = await runCli(['policies', 'list', '--no-headers', '-o', 'table'], { env });
    expect(ids.stdout.split('\n')[0]).toMatch(/^rlp_\w+ {2}/);
  });

  it('leaves out the day headings of event lines, and the title of a detail view', async () => {
    const tail = await runCli(['events', 'tail', '--since', '7d', '--max-events', '3', '-o', 'table', '--no-headers'], {
      env,
    });
    expect(tail.code).toBe(0);
    const lines = tail.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => /^\d\d:\d\d:\d\d {2}[a-z.]+ +evt_/.test(line))).toBe(true);
    const block = emu.fixtures.policyIdByAction.block;
    const detail = await runCli(['policies', 'get', block, '-o', 'table', '--no-headers'], { env });
    expect(detail.code).toBe(0);
    expect(detail.stdout.split('\n')[0]).toMatch(/^id {2,}rlp_/);
  });

  it('gives a table without -o, even piped (it is about tables)', async () => {
    const r = await runCli(['provisionings', 'list', '--take', '2', '--no-headers'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(3);
    expect(r.stdout).not.toContain('{');
  });

  it('does not apply to the data formats nor to --query (exit 2, nothing sent)', async () => {
    for (const extra of [['-o', 'json'], ['-o', 'raw'], ['--json'], ['--query', 'x']]) {
      const r = await runCli(['policies', 'list', '--no-headers', ...extra], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^svcadm: --no-headers does not apply to (-o (json|raw)|--query) — it drops the heading line of -o table or wide\n$/,
      );
    }
    await sentNothing();
  });
});

describe('--query that matches nothing', () => {
  it('says so once on stderr when every item of an ndjson run gave nothing; exit stays 0', async () => {
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson', '--query', 'conection_id'], { env });
    const all = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env });
    const count = all.stdout.split('\n').length - 1;
    expect(count).toBeGreaterThan(100);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `--query 'conection_id' matched nothing in any of the ${count} items (a misspelt field gives nothing; -o json without --query shows the fields)\n`,
    );
    const page = await runCli(['provisionings', 'list', '--take', '5', '-o', 'ndjson', '--query', 'conection_id'], {
      env,
    });
    expect(page.stderr.split('\n')[0]).toBe(
      "--query 'conection_id' matched nothing in any of the 5 items (a misspelt field gives nothing; -o json without --query shows the fields)",
    );
  });

  it('says nothing when one item matched, nor with -q', async () => {
    const some = await runCli(
      ['provisionings', 'list', '--all', '-o', 'ndjson', '--query', "strategy == 'okta' && connection_id || null"],
      { env },
    );
    expect(some.code).toBe(0);
    expect(some.stdout).not.toBe('');
    expect(some.stderr).toBe('');
    const quiet = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson', '--query', 'nope', '-q'], { env });
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('says so at the end of a tail', async () => {
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '3', '-o', 'ndjson', '--query', 'tpye'],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("--query 'tpye' matched nothing in any of the 3 items");
  });
});
