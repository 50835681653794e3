import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { INTERFACE_OPERATIONS } from '../../src/api/interface-paths.js';
import type { InStream } from '../../src/context.js';
import { VirtualClock } from '../helpers/clock.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { type Handler, json, loopbackPerTest } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli, tempConfigDir } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each), { env: { NO_COLOR: '1' } });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function interfaceRequests() {
  return (await emu.requests()).requests.filter((r) => r.kind === 'interface');
}

/** How many items the emulator serves a page for this call (its cap, or its default). */
async function pageSize(args: string[], key: string): Promise<number> {
  const r = await runCli(['api', ...args, '-X', 'GET'], { env });
  return (JSON.parse(r.stdout) as Record<string, unknown[]>)[key]?.length ?? 0;
}

const startServer = loopbackPerTest();

/** A loopback tenant that takes any bearer token: for the methods and shapes the emulator does not serve. */
async function loopback(handlers: Handler[]) {
  const server = await startServer(handlers);
  return { ...server, env: givenTokenEnv(server.url, 'tok-123') };
}

const noContent: Handler = (_req, res) => {
  res.writeHead(204);
  res.end();
};

describe('svcadm api against the emulator', () => {
  it('GETs a path and prints the body as the service sent it', async () => {
    const id = emu.fixtures.policyIdByAction.block;
    const viaApi = await runCli(['api', `/rate-limit-policies/${id}`], { env });
    const viaCommand = await runCli(['policies', 'get', id, '-o', 'json'], { env });
    expect(viaApi).toEqual({ code: 0, stdout: viaCommand.stdout, stderr: '' });
    const [sent] = await interfaceRequests();
    expect(sent).toMatchObject({ method: 'GET', path: `/api/v2/rate-limit-policies/${id}`, query: '' });
    expect(sent?.headers.accept).toBe('application/json');
  });

  it('sends a | of a user id intact, typed as it is or percent-encoded, with -f fields as the query of a GET', async () => {
    const user = emu.fixtures.userId;
    expect(user).toContain('|');
    const plain = await runCli(['api', `/users/${user}/permissions`, '-X', 'get', '-f', 'per_page=2', '-F', 'page=1'], {
      env,
    });
    const encoded = await runCli(
      ['api', 'GET', `api/v2/users/${encodeURIComponent(user)}/permissions?per_page=2&page=1`],
      {
        env,
      },
    );
    expect(plain.code).toBe(0);
    expect(encoded).toEqual(plain);
    expect(JSON.parse(plain.stdout)).toHaveLength(2);
    const sent = await interfaceRequests();
    expect(sent.map((r) => [r.method, r.path, r.query])).toEqual([
      ['GET', '/api/v2/users/db%7Cuser-0001/permissions', 'per_page=2&page=1'],
      ['GET', '/api/v2/users/db%7Cuser-0001/permissions', 'per_page=2&page=1'],
    ]);
  });

  it('DELETEs with the fields as the query, a generated correlation id printed on stderr, nothing on stdout', async () => {
    const db = emu.fixtures.databaseConnectionId;
    const r = await runCli(['api', 'DELETE', `/connections/${db}/users`, '-f', 'email=bob+ci@example.com', '--yes'], {
      env,
    });
    const [sent] = await interfaceRequests();
    expect(sent).toMatchObject({ method: 'DELETE', query: 'email=bob%2Bci%40example.com', status: 204 });
    expect(sent?.headers['x-correlation-id']).toMatch(UUID);
    expect(r).toEqual({ code: 0, stdout: '', stderr: `Correlation id: ${sent?.headers['x-correlation-id']}\n` });
  });

  it('prints the correlation id as a JSON line when JSON was asked for, and says nothing came back in a table', async () => {
    const db = emu.fixtures.databaseConnectionId;
    const args = ['api', '-X', 'DELETE', `/connections/${db}/users`, '--yes'];
    const asJson = await runCli([...args, '-f', 'email=alice@example.com', '--correlation-id', 'ci-42', '-o', 'json'], {
      env,
    });
    expect(asJson).toEqual({ code: 0, stdout: '', stderr: '{"correlation_id":"ci-42"}\n' });
    const table = await runCli(
      [...args, '-f', 'email=user0001@example.com', '--correlation-id', 'ci-43', '-o', 'table'],
      {
        env,
      },
    );
    expect(table).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Correlation id: ci-43\n204 No Content: the service sent no content\n',
    });
    expect((await interfaceRequests()).map((r) => r.headers['x-correlation-id'])).toEqual(['ci-42', 'ci-43']);
  });

  it('gives the exit code of the status, with the correlation id of a failed write in the hint', async () => {
    const missing = await runCli(['api', '/rate-limit-policies/rlp_nope', '-o', 'json'], { env });
    expect(missing).toEqual({
      code: 5,
      stdout: '',
      stderr:
        '{"error":{"status":404,"code":"inexistent_rate_limit_policy","message":"/rate-limit-policies/rlp_nope not found: The rate limit policy does not exist.","exit_code":5}}\n',
    });
    const other = emu.fixtures.nonDatabaseConnectionId;
    const rejected = await runCli(
      ['api', 'DELETE', `/connections/${other}/users`, '-f', 'email=a@example.com', '--correlation-id', 'c-1', '--yes'],
      { env },
    );
    expect(rejected.code).toBe(8);
    expect(rejected.stderr).toMatch(
      /^Correlation id: c-1\nsvcadm: the service rejected the request: .+ — correlation id c-1\n$/,
    );
  });

  it('reaches every operation it completes, as the emulator serves them', async () => {
    const ids: Record<string, string> = {
      '/rate-limit-policies/{id}': emu.fixtures.policyIds[0] as string,
      '/users/{id}/permissions': emu.fixtures.userId,
      '/connections/{id}/users': emu.fixtures.databaseConnectionId,
    };
    for (const { method, path } of INTERFACE_OPERATIONS) {
      const filled = path.replace('{id}', ids[path] ?? '');
      const fields = method === 'DELETE' || path === '/users-by-email' ? ['-f', 'email=alice@example.com'] : [];
      const r = await runCli(['api', method, filled, ...fields, '--yes'], { env });
      expect(r.code, `${method} ${filled}: ${r.stderr}`).toBe(0);
    }
  });

  it('follows checkpoint pages (next → from), printing each item once as NDJSON', async () => {
    const all = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env });
    await emu.clearRequests();
    const r = await runCli(
      ['api', '/connections-directory-provisionings', '-f', 'take=100', '--paginate', '-o', 'ndjson'],
      {
        env,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(all.stdout);
    expect(r.stdout.split('\n')).toHaveLength(261);
    const sent = await interfaceRequests();
    // As many requests as pages at the size the emulator serves (it may cap take).
    const served = await pageSize(
      ['/connections-directory-provisionings', '-f', 'take=100'],
      'directory_provisionings',
    );
    expect(sent).toHaveLength(Math.ceil(260 / served));
    expect(new URLSearchParams(sent[0]?.query).get('from')).toBeNull();
    for (const q of sent.slice(1)) expect(new URLSearchParams(q.query).get('from')).toMatch(/\S/);
  });

  it('tells a checkpoint list by its first answer when no page parameter is given', async () => {
    const r = await runCli(['api', '/connections-directory-provisionings', '--paginate', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(260);
    // The first answer is the first page, then next → from: no request is wasted.
    const requests = (await interfaceRequests()).length;
    expect(requests).toBe(
      Math.ceil(260 / (await pageSize(['/connections-directory-provisionings'], 'directory_provisionings'))),
    );
  });

  it('follows offset pages with include_totals and prints one merged array', async () => {
    const user = emu.fixtures.bulkUserId;
    const all = await runCli(['users', 'permissions', user, '--all', '-o', 'json'], { env });
    await emu.clearRequests();
    const r = await runCli(['api', `/users/${user}/permissions`, '-F', 'per_page=100', '--paginate'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(all.stdout);
    const sent = (await interfaceRequests()).map((q) => q.query);
    expect(sent[0]).toBe('page=0&per_page=100&include_totals=true');
    expect(sent.filter((q) => q.includes('include_totals'))).toHaveLength(1);
    // The rest planned from the limit the first answer returned.
    const limit = (
      JSON.parse(
        (
          await runCli(
            ['api', `/users/${user}/permissions`, '-X', 'GET', '-F', 'per_page=100', '-F', 'include_totals=true'],
            { env },
          )
        ).stdout,
      ) as { limit: number }
    ).limit;
    expect(sent.slice(1).sort()).toEqual(
      Array.from({ length: Math.ceil(1200 / limit) - 1 }, (_, i) => `page=${i + 1}&per_page=${limit}`).sort(),
    );
  });
});

describe('svcadm api: invalid input exits 2 and sends nothing', () => {
  const cases: Array<[string[], string]> = [
    [
      ['api', '/a/./b'],
      "svcadm: invalid path '/a/./b': '.' segments are refused — a server may resolve them, even encoded",
    ],
    [
      ['api', '/users/%2E%2E/x'],
      "svcadm: invalid path '/users/%2E%2E/x': '%2E%2E' segments are refused — a server may resolve them, even encoded",
    ],
    [
      ['api', '/users/{id}/permissions'],
      "svcadm: invalid path '/users/{id}/permissions': replace the placeholder {id}",
    ],
    [
      ['api', 'https://evil.example.com/api/v2/users'],
      "svcadm: invalid path 'https://evil.example.com/api/v2/users': give a path of the interface, not a URL — the tenant comes from --domain or the profile",
    ],
    [['api', '/'], "svcadm: invalid path '/': no path — e.g. /users/{id}/permissions, relative to /api/v2"],
    [['api', '/a//b'], "svcadm: invalid path '/a//b': it has an empty segment (//)"],
    [
      ['api', '/a/%zz'],
      "svcadm: invalid path '/a/%zz': '%zz' is not valid percent-encoding — write a literal % as %25",
    ],
    [['api', 'GET'], 'svcadm: give a path after GET — e.g. svcadm api GET /users/{id}/permissions'],
    [['api', 'FETCH', '/x'], "svcadm: unknown method 'FETCH' — use GET, POST, PUT, PATCH, DELETE"],
    [['api', 'POST', '/x', '-X', 'PUT'], 'svcadm: the method is given twice: POST and -X PUT'],
    [
      ['api', '/x', '-X', 'GET', '--input', '-'],
      'svcadm: a GET has no body: --input needs another method — name it, e.g. -X POST',
    ],
    [['api', 'POST', '/x', '--paginate'], 'svcadm: --paginate follows the pages of a GET, not a POST'],
    [
      ['api', '/x', '--correlation-id', 'c'],
      'svcadm: --correlation-id is for writes — the service logs it for POST, PUT, PATCH and DELETE',
    ],
    [['api', '/events'], "svcadm: GET /events is a stream of Server-Sent Events — use 'svcadm events tail'"],
    [
      ['api', '/x', '-H', 'Authorization: Bearer x'],
      'svcadm: -H Authorization is not allowed — svcadm sends the token of the active credentials; choose them with -p, --token or SVCADM_TOKEN',
    ],
    [
      ['api', '/x', '-H', 'authorization:x'],
      'svcadm: -H authorization is not allowed — svcadm sends the token of the active credentials; choose them with -p, --token or SVCADM_TOKEN',
    ],
    [['api', '/x', '-H', 'X-Correlation-ID: 1'], 'svcadm: -H X-Correlation-ID is not allowed — use --correlation-id'],
    [['api', '/x', '-H', 'NoColon'], "svcadm: -H 'NoColon' is not 'Name: value'"],
    [['api', '/x', '-H', 'X-A: b', '-H', 'x-a: c'], 'svcadm: -H x-a is given twice'],
    [['api', 'POST', '/x', '-f', 'novalue'], "svcadm: -f 'novalue' is not key=value"],
    [
      ['api', 'POST', '/x', '-F', 'n=12345678901234567890'],
      "svcadm: -F 'n=12345678901234567890': the number cannot be sent exactly — use -f to send it as a string",
    ],
    [
      ['api', 'POST', '/x', '-f', 'a=1', '-f', 'a=2', '--yes'],
      "svcadm: field 'a' is given twice — use name[]= for an array",
    ],
    [
      ['api', 'POST', '/x', '-f', 'a=1', '-f', 'a[b]=2', '--yes'],
      "svcadm: field 'a[b]' conflicts with an earlier field",
    ],
    [['api', 'POST', '/x', '--input', '-', '-F', 'a=@-'], 'svcadm: stdin can be read only once'],
    [
      ['api', 'POST', '/x', '--correlation-id', 'caf\u00e9'],
      'svcadm: --correlation-id must be visible ASCII characters (spaces only inside)',
    ],
    [
      ['api', '/x', '--paginate', '-f', 'page=2'],
      'svcadm: --paginate cannot be combined with a page parameter — --paginate starts at page 0',
    ],
  ];
  for (const [argv, stderr] of cases) {
    it(stderr, async () => {
      const r = await runCli(argv, { env });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `${stderr}\n` });
      const { counters } = await emu.requests();
      expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
    });
  }

  it('refuses a body that is not JSON, not UTF-8, or over 1 MB', async () => {
    const dir = tempConfigDir();
    const cases: Array<[string, Buffer | string, string]> = [
      [
        'bad.json',
        '{"a":',
        'svcadm: --input is not JSON: Unexpected end of JSON input — set -H Content-Type for another type',
      ],
      [
        'latin1.json',
        Buffer.from([0x22, 0xe9, 0x22]),
        `svcadm: --input: ${join(dir, 'latin1.json')} is not UTF-8 text`,
      ],
      [
        'big.json',
        `"${'x'.repeat(1024 * 1024)}"`,
        `svcadm: --input: ${join(dir, 'big.json')} is larger than 1 MB, the most the service accepts`,
      ],
    ];
    for (const [name, content, stderr] of cases) {
      writeFileSync(join(dir, name), content);
      const r = await runCli(['api', 'POST', '/roles', '--input', join(dir, name), '--yes'], { env });
      expect(r).toEqual({ code: 2, stdout: '', stderr: `${stderr}\n` });
    }
    const nearly = join(dir, 'nearly');
    writeFileSync(nearly, 'x'.repeat(1024 * 1024 - 10));
    const fields = await runCli(
      ['api', 'POST', '/roles', '-F', `description=@${nearly}`, '-f', 'name=a-long-enough-name', '--yes'],
      {
        env,
      },
    );
    expect(fields.code).toBe(2);
    expect(fields.stderr).toMatch(/^svcadm: the request would be \d+ bytes; the service accepts at most 1 MB\n$/);
    const query = await runCli(
      ['api', 'DELETE', '/roles/r1', '-F', `description=@${nearly}`, '-f', 'x=more', '--yes'],
      { env },
    );
    expect(query).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^svcadm: the request would be \d+ bytes; the service accepts at most 1 MB\n$/),
    });
    const { counters } = await emu.requests();
    expect(counters.interfaceRequests).toBe(0);
  });
});

describe('svcadm api: methods, fields and bodies (loopback tenant)', () => {
  it('POSTs, PUTs and PATCHes the fields as one JSON body: typed values, nested keys, arrays, @file', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'note.txt'), 'line 1\nline "2"\n');
    const lb = await loopback([json(201, { id: 'rol_1', name: 'ops' })]);
    const fields = [
      '-f',
      'name=ops',
      '-f',
      'count=5',
      '-F',
      'limit=5',
      '-F',
      'ratio=-0.25',
      '-F',
      'enabled=true',
      '-F',
      'gone=null',
      '-F',
      'label=five',
      '-f',
      'configuration[action]=block',
      '-F',
      'configuration[limit]=100',
      '-f',
      'tags[]=a',
      '-f',
      'tags[]=b',
      '-F',
      `note=@${join(dir, 'note.txt')}`,
    ];
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const r = await runCli(['api', method, '/roles/rol_1', ...fields, '--yes'], { env: lb.env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ id: 'rol_1', name: 'ops' });
    }
    const expected = {
      name: 'ops',
      count: '5',
      limit: 5,
      ratio: -0.25,
      enabled: true,
      gone: null,
      label: 'five',
      configuration: { action: 'block', limit: 100 },
      tags: ['a', 'b'],
      note: 'line 1\nline "2"\n',
    };
    expect(lb.requests.map((q) => q.method)).toEqual(['POST', 'PUT', 'PATCH']);
    for (const q of lb.requests) {
      expect(q.url).toBe('/api/v2/roles/rol_1');
      expect(JSON.parse(q.body)).toEqual(expected);
      expect(q.headers['content-type']).toBe('application/json');
      expect(q.headers.authorization).toBe('Bearer tok-123');
      expect(q.headers['x-correlation-id']).toMatch(UUID);
    }
  });

  it('keeps the order of -f and -F as given, in the body and in the query', async () => {
    const lb = await loopback([json(200, {})]);
    const args = ['-f', 'tags[]=a', '-F', 'tags[]=1', '-f', 'tags[]=b', '-F', 'tags[]=true'];
    await runCli(['api', 'POST', '/things', ...args, '--yes'], { env: lb.env });
    await runCli(['api', 'GET', '/things', '-f', 'x=1', '-F', 'y=2', '-f', 'z=3', '-F', 'x=4'], { env: lb.env });
    expect(JSON.parse(lb.requests[0]?.body ?? '')).toEqual({ tags: ['a', 1, 'b', true] });
    expect(lb.requests[1]?.url).toBe('/api/v2/things?x=1&x=4&y=2&z=3');
  });

  it('defaults to GET with or without fields (a write is always named)', async () => {
    const lb = await loopback([json(200, { ok: true })]);
    await runCli(['api', '/things', '-f', 'a=1'], { env: lb.env });
    await runCli(['api', '/things'], { env: lb.env });
    expect(lb.requests.map((q) => [q.method, q.url, q.body])).toEqual([
      ['GET', '/api/v2/things?a=1', ''],
      ['GET', '/api/v2/things', ''],
    ]);
  });

  it('sends --input as it is, with the fields in the query, from a file or stdin', async () => {
    const dir = tempConfigDir();
    const body = '{ "users": ["u1", "u|2"] }\n';
    writeFileSync(join(dir, 'body.json'), body);
    const lb = await loopback([noContent]);
    const fromFile = await runCli(
      ['api', 'DELETE', '/roles/r1/users', '--input', join(dir, 'body.json'), '-f', 'x=y z', '--yes'],
      {
        env: lb.env,
      },
    );
    const fromStdin = await runCli(['api', 'PUT', '/roles/r1/users', '--input', '-', '-H', 'X-Trace: abc', '--yes'], {
      env: lb.env,
      stdin: body,
    });
    expect([fromFile.code, fromStdin.code]).toEqual([0, 0]);
    const [first, second] = lb.requests;
    expect(first).toMatchObject({ method: 'DELETE', url: '/api/v2/roles/r1/users?x=y%20z', body });
    expect(second).toMatchObject({ method: 'PUT', url: '/api/v2/roles/r1/users', body });
    expect(second?.headers['x-trace']).toBe('abc');
    expect(second?.headers['content-type']).toBe('application/json');
  });

  it('retries a GET on 503 but a write only on 429, never on 5xx', async () => {
    const clock = new VirtualClock();
    const lb = await loopback([
      json(503, { message: 'down' }),
      json(429, { message: 'slow' }, { 'retry-after': '2' }),
      json(200, {}),
    ]);
    const write = await runCli(['api', 'POST', '/things', '-f', 'a=1', '--max-retries', '3', '--yes'], {
      env: lb.env,
      clock,
    });
    expect(write.code).toBe(7);
    expect(write.stderr).toMatch(/svcadm: the service failed: down — correlation id \S+\n$/);
    expect(lb.requests).toHaveLength(1);
    const again = await runCli(['api', 'POST', '/things', '-f', 'a=1', '--yes'], { env: lb.env, clock });
    expect(again.code).toBe(0);
    expect(lb.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([2000]);
    const cut = await loopback([(_q, res) => res.socket?.destroy()]);
    const lost = await runCli(['api', 'PUT', '/things/1', '-f', 'a=1', '--correlation-id', 'c-cut', '--yes'], {
      env: cut.env,
    });
    expect(lost.code).toBe(7);
    expect(lost.stderr).toMatch(
      /^Correlation id: c-cut\nsvcadm: connection to 127\.0\.0\.1:\d+ was reset: the PUT was sent; its outcome is unknown — correlation id c-cut\n$/,
    );
    expect(cut.requests).toHaveLength(1);
    const lb2 = await loopback([json(503, {}), json(503, {}), json(200, { ok: 1 })]);
    const read = await runCli(['api', '/things'], { env: lb2.env });
    expect(read).toEqual({ code: 0, stdout: '{\n  "ok": 1\n}\n', stderr: '' });
    expect(lb2.requests).toHaveLength(3);
  });

  it('asks before a write on a terminal, and sends nothing unless confirmed', async () => {
    const lb = await loopback([noContent]);
    const tty = { stdin: true, stdout: true, stderr: true };
    const no = await runCli(['api', 'DELETE', '/things/a|b'], { env: lb.env, tty, stdin: 'n\n' });
    expect(no).toEqual({
      code: 2,
      stdout: '',
      stderr: `Send DELETE /things/a%7Cb to ${new URL(lb.url).host}? [y/N] svcadm: not confirmed: nothing was sent\n`,
    });
    expect(lb.requests).toHaveLength(0);
    const yes = await runCli(['api', 'DELETE', '/things/a|b', '--correlation-id', 'c-9'], {
      env: lb.env,
      tty,
      stdin: 'y\n',
    });
    expect(yes).toEqual({
      code: 0,
      stdout: '',
      stderr: `Send DELETE /things/a%7Cb to ${new URL(lb.url).host}? [y/N] Correlation id: c-9\n204 No Content: the service sent no content\n`,
    });
    const skip = await runCli(['api', 'DELETE', '/things/c', '--yes', '-q'], { env: lb.env, tty });
    expect(skip).toEqual({ code: 0, stdout: '', stderr: '' });
    const stdinBody = await runCli(['api', 'POST', '/things', '--input', '-'], { env: lb.env, tty, stdin: '{}' });
    expect(stdinBody).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: the body is read from the terminal, so the write cannot be confirmed there — pass --yes\n',
    });
    expect(lb.requests.map((q) => q.url)).toEqual(['/api/v2/things/a%7Cb', '/api/v2/things/c']);
  });

  it('shows a generic table on a terminal, neutralising what the service sent', async () => {
    const lb = await loopback([
      json(200, { id: 'x1', name: 'red\u001b[31m', nested: { a: [1, 2] } }),
      json(200, [
        { id: 'a', n: 1 },
        { id: 'b', extra: true },
      ]),
    ]);
    const one = await runCli(['api', '/things/x1', '-o', 'table'], { env: lb.env });
    expect(one).toEqual({ code: 0, stdout: 'id      x1\nname    red\\x1b[31m\nnested  {"a":[1,2]}\n', stderr: '' });
    const list = await runCli(['api', '/things', '-o', 'table'], { env: lb.env });
    expect(list).toEqual({ code: 0, stdout: 'ID  N  EXTRA\na   1  -\nb   -  true\n', stderr: '' });
  });

  it('never traces the token with --debug, and refuses a body that is not JSON', async () => {
    const lb = await loopback([(_q, res: ServerResponse) => res.writeHead(200).end('<html>')]);
    const r = await runCli(['api', '/things', '--debug'], { env: lb.env });
    expect(r.code).toBe(7);
    expect(r.stderr).not.toContain('tok-123');
    expect(r.stderr).toMatch(/svcadm: debug: GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/things → 200 OK in \d+ ms\n/);
    expect(r.stderr).toMatch(/svcadm: malformed response from the service: 6 bytes that are not valid JSON\n$/);
  });

  it('refuses an answer nested 5,000 levels deep, in every format, as the other commands do: exit 7', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const lb = await loopback([
      (_q, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(deep),
    ]);
    const message = 'malformed answer from the service: JSON nested more than 64 levels deep';
    const envelope = `${JSON.stringify({ error: { status: null, code: 'malformed_answer', message, exit_code: 7 } })}\n`;
    for (const [output, stderr] of [
      ['json', envelope],
      ['yaml', envelope],
      ['table', `svcadm: ${message}\n`],
    ] as const) {
      const r = await runCli(['api', '/things', '-o', output], { env: lb.env });
      expect(r).toEqual({ code: 7, stdout: '', stderr });
    }
  });

  it('refuses a next checkpoint that is not a cursor (1 to 1024 visible ASCII characters) with --paginate: exit 7', async () => {
    const lb = await loopback([json(200, { things: [{ id: 'a' }], next: 'x\u001b]0;pwned\u0007' })]);
    const r = await runCli(['api', '/things', '--paginate'], { env: lb.env });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'svcadm: malformed response from the service: a next checkpoint that is not 1 to 1024 visible ASCII characters\n',
    });
  });
});

/** An offset list of `total` items served at most `cap` a page, whatever is asked (a public-cloud tenant). */
function cappedOffsetList(total: number, cap: number, served = total): Handler {
  const items = Array.from({ length: served }, (_, i) => ({ id: `p${i}`, n: i }));
  return (req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const perPage = Math.min(Number(q.get('per_page') ?? 50), cap);
    const page = Number(q.get('page') ?? 0);
    const slice = items.slice(page * perPage, (page + 1) * perPage);
    const body =
      q.get('include_totals') === 'true' ? { start: page * perPage, limit: perPage, total, items: slice } : slice;
    json(200, body)(req, res);
  };
}

/** A checkpoint list of `total` items, at most `cap` a page whatever `take` asks. */
function cappedCheckpointList(total: number, cap: number): Handler {
  return (req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const start = Number(q.get('from') ?? 0);
    const take = Math.min(Number(q.get('take') ?? 50), cap);
    const items = Array.from({ length: Math.max(0, Math.min(take, total - start)) }, (_, i) => ({
      id: `c${start + i}`,
    }));
    json(200, { things: items, ...(start + take < total ? { next: String(start + take) } : {}) })(req, res);
  };
}

describe('svcadm api --paginate against a tenant that caps the page size', () => {
  it('plans offset pages from the limit it returns', async () => {
    const lb = await loopback([cappedOffsetList(10, 3)]);
    const r = await runCli(['api', '/things', '-f', 'per_page=100', '--paginate', '-o', 'ndjson'], { env: lb.env });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { n: number }).n),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(lb.requests.map((q) => new URL(q.url, 'http://x').search).sort()).toEqual([
      '?page=0&per_page=100&include_totals=true',
      '?page=1&per_page=3',
      '?page=2&per_page=3',
      '?page=3&per_page=3',
    ]);
  });

  it('reports a shortfall against the total with exit 7', async () => {
    const lb = await loopback([cappedOffsetList(12, 5, 10)]);
    const r = await runCli(['api', '/things', '-F', 'include_totals=true', '--paginate', '-o', 'ndjson'], {
      env: lb.env,
    });
    expect(r.code).toBe(7);
    expect(r.stdout.trim().split('\n')).toHaveLength(10);
    expect(r.stderr).toBe(
      'incomplete: printed 10 of 12\n' +
        '{"error":{"status":null,"code":"list_changed","message":"the service said there are 12 items but sent 10: 2 missing (the list may have changed while paging; run again)","exit_code":7}}\n',
    );
  });

  it('follows capped checkpoint pages to the end, and a probe finds an offset list without a page parameter', async () => {
    const lb = await loopback([cappedCheckpointList(7, 2)]);
    const r = await runCli(['api', '/things', '-F', 'take=50', '--paginate', '-o', 'json'], { env: lb.env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((i) => i.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
      'c5',
      'c6',
    ]);
    expect(lb.requests.map((q) => new URL(q.url, 'http://x').searchParams.get('from'))).toEqual([null, '2', '4', '6']);
    const offset = await loopback([cappedOffsetList(4, 3)]);
    const probed = await runCli(['api', '/things', '--paginate', '-o', 'ndjson'], { env: offset.env });
    expect(probed.stdout.trim().split('\n')).toHaveLength(4);
    expect(offset.requests.map((q) => new URL(q.url, 'http://x').search)).toEqual([
      '',
      '?page=0&per_page=100&include_totals=true',
      '?page=1&per_page=3',
    ]);
  });

  it('prints an answer that is not a list as it is', async () => {
    const lb = await loopback([json(200, { id: 'x', a: 1, b: 'two' })]);
    const r = await runCli(['api', '/things/x', '--paginate'], { env: lb.env });
    expect(r).toEqual({ code: 0, stdout: '{\n  "id": "x",\n  "a": 1,\n  "b": "two"\n}\n', stderr: '' });
  });

  it('stops on a repeated checkpoint (exit 7)', async () => {
    const lb = await loopback([json(200, { things: [{ id: 1 }], next: 'same' })]);
    const r = await runCli(['api', '/things', '--paginate'], { env: lb.env });
    expect(r.code).toBe(7);
    // One page came (its item held for the whole array): nothing on stdout.
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'incomplete: printed 0, more existed\nsvcadm: the service returned the same pagination checkpoint twice\n',
    );
  });
});

describe('svcadm api: reading stdin for a typed field', () => {
  it('takes -F name=@- from stdin', async () => {
    const lb = await loopback([json(200, {})]);
    const stdin = new PassThrough() as PassThrough & InStream;
    stdin.end('from stdin');
    const r = await runCli(['api', 'POST', '/things', '-F', 'text=@-', '--yes'], { env: lb.env, stdinStream: stdin });
    expect(r.code).toBe(0);
    expect(JSON.parse(lb.requests[0]?.body ?? '')).toEqual({ text: 'from stdin' });
  });
});
