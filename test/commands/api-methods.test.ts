import { describe, expect, it } from 'vitest';
import { type Handler, json, loopbackPerTest } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli } from '../helpers/run-cli.js';

const startServer = loopbackPerTest();

/** A loopback tenant that records every request and takes any bearer token. */
async function loopback(handlers: Handler[] = [json(200, { ok: true })]) {
  const server = await startServer(handlers);
  return { ...server, env: givenTokenEnv(server.url, 'tok-123') };
}

describe('svcadm api reads unless told to write (issue 16, item 4)', () => {
  it('sends a GET with -f and -F as the query when no method is named, as curl -G', async () => {
    const lb = await loopback();
    const r = await runCli(['api', '/users/auth0|1/permissions', '-f', 'per_page=5', '-F', 'include_totals=true'], {
      env: lb.env,
    });
    expect(r).toEqual({ code: 0, stdout: '{\n  "ok": true\n}\n', stderr: '' });
    expect(lb.requests.map((q) => [q.method, q.url, q.body])).toEqual([
      ['GET', '/api/v2/users/auth0%7C1/permissions?per_page=5&include_totals=true', ''],
    ]);
  });

  it('refuses a write off a terminal without --yes: exit 2, one line, nothing sent', async () => {
    const lb = await loopback();
    const cases: Array<[string[], string]> = [
      [['api', '-X', 'POST', '/roles', '-f', 'name=ops'], 'POST /roles'],
      [['api', 'put', '/roles/r1', '-f', 'name=ops'], 'PUT /roles/r1'],
      [['api', '/roles/r1', '--method', 'PATCH', '-F', 'n=1'], 'PATCH /roles/r1'],
      [['api', 'DELETE', '/connections/con_1/users', '-f', 'email=bob@example.com'], 'DELETE /connections/con_1/users'],
      [['api', '-X', 'DELETE', '/things/a|b'], 'DELETE /things/a%7Cb'],
    ];
    for (const [argv, what] of cases) {
      const r = await runCli(argv, { env: lb.env });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: refusing to send ${what} without confirmation: not a terminal — pass --yes to send it\n`,
      });
    }
    expect(lb.requests).toEqual([]);
  });

  it('counts a GET that a method-override header or a _method field makes a write as that write (issue 28, point 20)', async () => {
    const lb = await loopback();
    const cases: Array<[string[], string]> = [
      [
        ['api', '/roles/r1', '-H', 'X-HTTP-Method-Override: DELETE'],
        'GET /roles/r1 with X-HTTP-Method-Override: DELETE',
      ],
      [['api', '/roles/r1', '-H', 'x-http-method: put'], 'GET /roles/r1 with X-HTTP-Method: PUT'],
      [['api', 'GET', '/roles/r1', '-H', 'X-Method-Override: Patch'], 'GET /roles/r1 with X-Method-Override: PATCH'],
      [['api', '/roles/r1', '-f', '_method=delete'], 'GET /roles/r1 with _method=DELETE'],
      [['api', '/roles/r1?_method=POST'], 'GET /roles/r1 with _method=POST'],
      [['api', '/roles/r1', '-F', '_method=@-'], 'GET /roles/r1 with _method read from -'],
    ];
    for (const [argv, what] of cases) {
      const r = await runCli(argv, { env: lb.env, stdin: 'DELETE' });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: refusing to send ${what} without confirmation: not a terminal — pass --yes to send it\n`,
      });
    }
    expect(lb.requests).toEqual([]);
  });

  it('sends an overridden GET with --yes as a write: a correlation id, no retry on 503, never paginated', async () => {
    const lb = await loopback([json(503, { message: 'busy' }), json(200, { ok: true })]);
    const r = await runCli(
      ['api', '/roles/r1', '-H', 'X-HTTP-Method-Override: DELETE', '--yes', '--correlation-id', 'cid-override-1'],
      { env: lb.env },
    );
    expect(r.code, r.stderr).toBe(7);
    expect(lb.requests.map((q) => [q.method, q.url, q.headers['x-correlation-id']])).toEqual([
      ['GET', '/api/v2/roles/r1', 'cid-override-1'],
    ]);
    const paged = await runCli(['api', '/roles', '--paginate', '-f', '_method=DELETE', '--yes'], { env: lb.env });
    expect(paged).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: --paginate follows the pages of a read, and _method=DELETE makes this a write\n',
    });
    const read = await runCli(
      ['api', '/roles/r1', '-H', 'X-HTTP-Method-Override: GET', '-H', 'X-HTTP-Method:', '-f', '_method=get'],
      {
        env: lb.env,
      },
    );
    expect(read).toEqual({ code: 0, stdout: '{\n  "ok": true\n}\n', stderr: '' });
  });

  it('refuses with the same envelope code as connections delete-user under -o json', async () => {
    const lb = await loopback();
    const api = await runCli(['api', '-X', 'POST', '/roles', '-f', 'name=ops', '-o', 'json'], { env: lb.env });
    const del = await runCli(['connections', 'delete-user', 'con_1', '--email', 'a@example.com', '-o', 'json'], {
      env: lb.env,
    });
    expect(api.code).toBe(2);
    const envelope = JSON.parse(api.stderr) as { error: Record<string, unknown> };
    const deleteEnvelope = JSON.parse(del.stderr) as { error: Record<string, unknown> };
    expect(envelope).toEqual({
      error: {
        status: null,
        code: deleteEnvelope.error.code,
        message: 'refusing to send POST /roles without confirmation: not a terminal',
        hint: 'pass --yes to send it',
        exit_code: 2,
      },
    });
    expect(lb.requests).toEqual([]);
  });

  it('sends a write with --yes: fields are a JSON body for POST, PUT and PATCH, the query for DELETE', async () => {
    const lb = await loopback([json(200, { ok: true })]);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await runCli(['api', '-X', method, '/roles/r1', '-f', 'name=ops', '--yes', '-q'], { env: lb.env });
      expect(r).toEqual({ code: 0, stdout: '{\n  "ok": true\n}\n', stderr: '' });
    }
    expect(lb.requests.map((q) => [q.method, q.url, q.body])).toEqual([
      ['POST', '/api/v2/roles/r1', '{"name":"ops"}'],
      ['PUT', '/api/v2/roles/r1', '{"name":"ops"}'],
      ['PATCH', '/api/v2/roles/r1', '{"name":"ops"}'],
      ['DELETE', '/api/v2/roles/r1?name=ops', ''],
    ]);
  });

  it('needs a method for --input: a GET has no body', async () => {
    const lb = await loopback();
    const r = await runCli(['api', '/roles', '--input', '-'], { env: lb.env, stdin: '{}' });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: a GET has no body: --input needs another method — name it, e.g. -X POST\n',
    });
    expect(lb.requests).toEqual([]);
  });
});
