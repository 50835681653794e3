import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { type Behaviour, hostileServerPerTest, issueToken, raw } from '../helpers/hostile-server.js';
import { refusedPort } from '../helpers/loopback-server.js';
import { BIN, runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const SWITCHING = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n';
const noContent: Behaviour = (_req, res) => res.writeHead(204).end();

function deleteUser(...extra: string[]): string[] {
  return ['connections', 'delete-user', 'con_1', '--email', 'bob@example.com', '--yes', ...extra];
}

describe('an answer svcadm cannot use: 101 Switching Protocols (issue 17, item 7)', () => {
  it('to the token POST: exit 7 with one line, not retried', async () => {
    const server = await hostile({ token: raw(SWITCHING) });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env() });
    const host = new URL(server.url).host;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: ${host} answered 101 Switching Protocols, an answer svcadm cannot use\n`,
    });
    expect(server.tokenRequests()).toHaveLength(1);
    expect(server.apiRequests()).toHaveLength(0);
  });

  it('to a read: exit 7 with one line, not retried', async () => {
    const server = await hostile({ api: raw(SWITCHING) });
    const r = await runCli(['api', '/rate-limit-policies/rlp_1'], { env: server.env() });
    const host = new URL(server.url).host;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: ${host} answered 101 Switching Protocols, an answer svcadm cannot use\n`,
    });
    expect(server.apiRequests()).toHaveLength(1);
  });

  it('to connections delete-user: the outcome-unknown line with the correlation id printed before sending', async () => {
    const server = await hostile({ api: raw(SWITCHING) });
    const r = await runCli(deleteUser('--correlation-id', 'c-101'), { env: server.env() });
    const host = new URL(server.url).host;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'Correlation id: c-101\n' +
        `svcadm: ${host} answered 101 Switching Protocols, an answer svcadm cannot use: the DELETE was sent; its outcome is unknown — correlation id c-101\n`,
    });
    expect(server.apiRequests()).toHaveLength(1);
  });
});

describe('a DELETE whose answer never comes (issue 17, item 8)', () => {
  it('--timeout on connections delete-user: retried as an idempotent delete, then the outcome is unknown', async () => {
    const clock = new VirtualClock();
    // The server never answers; its clock is the test's, so the 1 s time limit passes as the request arrives.
    const server = await hostile({ api: () => clock.advance(1000) });
    const r = await runCli(deleteUser('--correlation-id', 'c-t', '--timeout', '1s', '--max-retries', '1'), {
      env: server.env(),
      clock,
    });
    const host = new URL(server.url).host;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'Correlation id: c-t\n' +
        `svcadm: no answer from ${host} within 1s; trying again (at most 1 times, see --max-retries)\n` +
        `svcadm: no answer from ${host} within 1s (after 1 retry): the DELETE was sent; its outcome is unknown — correlation id c-t\n`,
    });
    expect(server.apiRequests().map((q) => q.headers['x-correlation-id'])).toEqual(['c-t', 'c-t']);
  });

  it('--timeout on svcadm api -X DELETE: not retried, the outcome is unknown, in the JSON envelope too', async () => {
    const clock = new VirtualClock();
    const server = await hostile({ api: () => clock.advance(2000) });
    const r = await runCli(
      ['api', '-X', 'DELETE', '/roles/r1', '--yes', '--correlation-id', 'c-a', '--timeout', '2s', '-o', 'json'],
      {
        env: server.env(),
        clock,
      },
    );
    const host = new URL(server.url).host;
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        '{"correlation_id":"c-a"}\n' +
        `{"error":{"status":null,"code":"outcome_unknown","message":"no answer from ${host} within 2s: the DELETE was sent; its outcome is unknown","hint":"correlation id c-a","exit_code":7}}\n`,
    });
    expect(server.apiRequests()).toHaveLength(1);
  });

  for (const [signal, code, word] of [
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated'],
  ] as const) {
    it(`${signal} after the DELETE was sent: exit ${code}, the outcome is unknown`, async () => {
      const stop = new AbortController();
      const server = await hostile({ api: () => stop.abort(new Interrupted(signal)) });
      const r = await runCli(deleteUser('--correlation-id', 'c-s'), { env: server.env(), interrupt: stop.signal });
      expect(r).toEqual({
        code,
        stdout: '',
        stderr: `Correlation id: c-s\nsvcadm: ${word}: the DELETE was sent; its outcome is unknown — correlation id c-s\n`,
      });
    });
  }

  it('SIGINT after svcadm api -X DELETE was sent, with -o json: the envelope says so', async () => {
    const stop = new AbortController();
    const server = await hostile({ api: () => stop.abort(new Interrupted('SIGINT')) });
    const r = await runCli(['api', 'DELETE', '/roles/r1', '--yes', '--correlation-id', 'c-j', '-o', 'json'], {
      env: server.env(),
      interrupt: stop.signal,
    });
    expect(r).toEqual({
      code: 130,
      stdout: '',
      stderr:
        '{"correlation_id":"c-j"}\n' +
        '{"error":{"status":null,"code":"interrupted","message":"interrupted: the DELETE was sent; its outcome is unknown","hint":"correlation id c-j","exit_code":130}}\n',
    });
  });

  it('SIGINT while the token is fetched: nothing was sent, so nothing is said of an outcome', async () => {
    const stop = new AbortController();
    const server = await hostile({ token: () => stop.abort(new Interrupted('SIGINT')), api: noContent });
    const r = await runCli(deleteUser('--correlation-id', 'c-n'), { env: server.env(), interrupt: stop.signal });
    expect(r).toEqual({ code: 130, stdout: '', stderr: 'Correlation id: c-n\nsvcadm: interrupted\n' });
    expect(server.apiRequests()).toHaveLength(0);
  });

  it('prints the correlation id of connections delete-user before the result', async () => {
    const server = await hostile({ token: issueToken(), api: noContent });
    const r = await runCli(deleteUser('--correlation-id', 'c-ok', '-o', 'table'), { env: server.env() });
    expect(r).toEqual({
      code: 0,
      stdout: 'No user bob@example.com remains in connection con_1\n',
      stderr: 'Correlation id: c-ok\n',
    });
  });
});

describe('a reader of stdout that is gone when the 204 comes back (issue 17, item 8)', () => {
  it('connections delete-user has printed the correlation id on stderr before sending: exit 0', async () => {
    const server = await hostile({ api: noContent });
    const child = spawn(process.execPath, [BIN, ...deleteUser('--correlation-id', 'c-pipe')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...server.env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: 'Correlation id: c-pipe\n' });
    expect(server.apiRequests()).toHaveLength(1);
  });
});

describe('a write that never left', () => {
  it('a refused connection is not an unknown outcome: the DELETE did not arrive', async () => {
    const port = await refusedPort();
    const env = { SVCADM_DOMAIN: `http://127.0.0.1:${port}`, SVCADM_TOKEN: 'tok-123' };
    const r = await runCli(['api', 'DELETE', '/roles/r1', '--yes', '--correlation-id', 'c-r', '--max-retries', '0'], {
      env,
    });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `Correlation id: c-r\nsvcadm: connection refused by 127.0.0.1:${port} — correlation id c-r\n`,
    });
  });
});
