import { describe, expect, it } from 'vitest';
import { json, loopbackPerTest } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli } from '../helpers/run-cli.js';

// Issue 16, item 2: a page printed while more exist says so on stderr, in one stable line, in every data format.

const loopback = loopbackPerTest();

const permission = { permission_name: 'read:users', resource_server_identifier: 'https://api.example.com/' };

describe('a total above what was printed', () => {
  const page = { start: 0, limit: 25, total: 1200, permissions: Array.from({ length: 25 }, () => permission) };

  it.each([['json'], ['yaml'], ['ndjson']])('-o %s: the line names both ways to get the rest', async (format) => {
    const server = await loopback([json(200, page)]);
    const r = await runCli(['users', 'permissions', 'db|u1', '--include-totals', '-o', format], {
      env: givenTokenEnv(server.url),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `more results: printed 25 of 1200; next page: svcadm --domain ${server.url} -o ${format} users permissions 'db|u1' --page 1 --include-totals; every page: svcadm --domain ${server.url} -o ${format} users permissions 'db|u1' --all\n`,
    );
  });

  it('off a terminal without -o (json by default): the same line, without -o', async () => {
    const server = await loopback([json(200, page)]);
    const r = await runCli(['users', 'permissions', 'db|u1', '--include-totals'], { env: givenTokenEnv(server.url) });
    expect(r.stderr).toBe(
      `more results: printed 25 of 1200; next page: svcadm --domain ${server.url} users permissions 'db|u1' --page 1 --include-totals; every page: svcadm --domain ${server.url} users permissions 'db|u1' --all\n`,
    );
  });

  it('nothing after the last page, nor with --quiet', async () => {
    const server = await loopback([
      json(200, { start: 1175, limit: 25, total: 1200, permissions: page.permissions }),
      json(200, page),
    ]);
    const env = givenTokenEnv(server.url);
    const last = await runCli(['users', 'permissions', 'db|u1', '--include-totals', '--page', '47', '-o', 'json'], {
      env,
    });
    expect({ code: last.code, stderr: last.stderr }).toEqual({ code: 0, stderr: '' });
    const quiet = await runCli(['users', 'permissions', 'db|u1', '--include-totals', '-q', '-o', 'json'], { env });
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('the table keeps its own line for people', async () => {
    const server = await loopback([json(200, page)]);
    const r = await runCli(['users', 'permissions', 'db|u1', '--include-totals', '-o', 'table'], {
      env: givenTokenEnv(server.url),
    });
    expect(r.stderr).toBe(
      `Next page: svcadm --domain ${server.url} -o table users permissions 'db|u1' --page 1 --include-totals\n`,
    );
  });
});

describe('a next checkpoint', () => {
  it('svcadm api: a list answer with next says to run it again with --paginate', async () => {
    const server = await loopback([json(200, { directory_provisionings: [{ connection_id: 'c1' }], next: 'cp2' })]);
    const r = await runCli(['api', '/connections-directory-provisionings', '-o', 'json'], {
      env: givenTokenEnv(server.url),
    });
    expect(r).toEqual({
      code: 0,
      stdout:
        '{\n  "directory_provisionings": [\n    {\n      "connection_id": "c1"\n    }\n  ],\n  "next": "cp2"\n}\n',
      stderr: 'more results: printed 1, more exist; every page: run it again with --paginate for every page\n',
    });
  });

  it('a hostile checkpoint is quoted in the line, never run when pasted', async () => {
    const server = await loopback([json(200, { directory_provisionings: [{ connection_id: 'c1' }], next: '$(id)' })]);
    const r = await runCli(['provisionings', 'list', '-o', 'ndjson'], { env: givenTokenEnv(server.url) });
    expect(r.stderr).toBe(
      `more results: printed 1, more exist; next page: svcadm --domain ${server.url} -o ndjson provisionings list --from '$(id)'; every page: svcadm --domain ${server.url} -o ndjson provisionings list --all\n`,
    );
  });
});
