import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loopbackPerTest, type Recorded } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli } from '../helpers/run-cli.js';

// Issue 16, item 3: `--all` in json and yaml prints one complete document or nothing; ndjson streams and says what
// it printed when a page keeps failing midway or the run is interrupted; a table says so too.

const TOTAL = 300;
const PERMISSIONS = Array.from({ length: TOTAL }, (_, i) => ({
  permission_name: `read:thing-${String(i).padStart(3, '0')}`,
  resource_server_identifier: 'https://api.example.com/',
}));

const UNAVAILABLE = JSON.stringify({
  statusCode: 503,
  error: 'Service Unavailable',
  message: 'The service is down for maintenance',
});

/** Offset pages of 100 with totals; from page `failFrom` on, 503 every time (or `hold` instead of answering). */
function permissionPages(failFrom: number, hold?: (respond: () => void) => void) {
  return (req: Recorded, res: ServerResponse) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') ?? 0);
    if (page >= failFrom) {
      if (hold) return hold(() => res.end());
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end(UNAVAILABLE);
    }
    const slice = PERMISSIONS.slice(page * 100, page * 100 + 100);
    const body =
      url.searchParams.get('include_totals') === 'true'
        ? { start: page * 100, limit: 100, total: TOTAL, permissions: slice }
        : slice;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
}

const loopback = loopbackPerTest();

const all = ['users', 'permissions', 'db|u1', '--all', '--concurrency', '1', '--max-retries', '1'];
const failed = 'svcadm: the service failed: The service is down for maintenance (still 503 after 1 retry)\n';
const lines = (n: number) =>
  PERMISSIONS.slice(0, n)
    .map((p) => `${JSON.stringify(p)}\n`)
    .join('');

describe('--all where a page keeps answering 503 midway', () => {
  it.each([['json'], ['yaml'], ['table']])('-o %s prints nothing on stdout, says so, and exits 7', async (format) => {
    const server = await loopback([permissionPages(2)]);
    const r = await runCli([...all, '-o', format], { env: givenTokenEnv(server.url) });
    const envelope =
      '{"error":{"status":503,"code":"server_error","message":"the service failed: The service is down for maintenance (still 503 after 1 retry)","exit_code":7}}\n';
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `incomplete: printed 0 of 300\n${format === 'table' ? failed : envelope}`,
    });
  });

  it('-o ndjson prints the pages it got, then says how many of how many, and exits 7', async () => {
    const server = await loopback([permissionPages(2)]);
    const r = await runCli([...all, '-o', 'ndjson'], { env: givenTokenEnv(server.url) });
    expect(r).toEqual({
      code: 7,
      stdout: lines(200),
      stderr:
        'incomplete: printed 200 of 300\n' +
        '{"error":{"status":503,"code":"server_error","message":"the service failed: The service is down for maintenance (still 503 after 1 retry)","exit_code":7}}\n',
    });
  });

  it('says it even with --quiet: what is on stdout is not the list', async () => {
    const server = await loopback([permissionPages(2)]);
    const r = await runCli([...all, '-o', 'ndjson', '-q'], { env: givenTokenEnv(server.url) });
    expect(r.stderr.split('\n')[0]).toBe('incomplete: printed 200 of 300');
  });

  it('a checkpoint list without a total: printed N, more existed', async () => {
    const server = await loopback([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ directory_provisionings: [{ connection_id: 'con_1' }], next: 'cp2' }));
      },
      (_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(UNAVAILABLE);
      },
    ]);
    const r = await runCli(['provisionings', 'list', '--all', '--max-retries', '1', '-o', 'ndjson'], {
      env: givenTokenEnv(server.url),
    });
    expect(r).toEqual({
      code: 7,
      stdout: '{"connection_id":"con_1"}\n',
      stderr:
        'incomplete: printed 1, more existed\n' +
        '{"error":{"status":503,"code":"server_error","message":"the service failed: The service is down for maintenance (still 503 after 1 retry)","exit_code":7}}\n',
    });
  });

  it('a complete run is unchanged: one array, nothing on stderr', async () => {
    const server = await loopback([permissionPages(99)]);
    const r = await runCli([...all, '-o', 'json'], { env: givenTokenEnv(server.url) });
    expect(r).toEqual({ code: 0, stdout: `${JSON.stringify(PERMISSIONS, null, 2)}\n`, stderr: '' });
  });
});

describe('--all stopped by Ctrl-C while a page is on its way', () => {
  /** Interrupts the run when the third page is asked for, and never answers it. */
  async function interrupted(format: string) {
    const stop = new AbortController();
    const server = await loopback([permissionPages(2, () => stop.abort())]);
    return runCli([...all, '-o', format], { env: givenTokenEnv(server.url), interrupt: stop.signal });
  }

  it('-o ndjson: the lines printed, then what they are of the whole, then the interrupt (exit 130)', async () => {
    expect(await interrupted('ndjson')).toEqual({
      code: 130,
      stdout: lines(200),
      stderr:
        'incomplete: printed 200 of 300\n' +
        '{"error":{"status":null,"code":"interrupted","message":"interrupted","exit_code":130}}\n',
    });
  });

  it('-o json: nothing on stdout, not an unterminated array', async () => {
    expect(await interrupted('json')).toEqual({
      code: 130,
      stdout: '',
      stderr:
        'incomplete: printed 0 of 300\n' +
        '{"error":{"status":null,"code":"interrupted","message":"interrupted","exit_code":130}}\n',
    });
  });

  it('a table: nothing printed, and the plain line', async () => {
    expect(await interrupted('table')).toEqual({
      code: 130,
      stdout: '',
      stderr: 'incomplete: printed 0 of 300\nsvcadm: interrupted\n',
    });
  });
});
