import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodeOf } from '../../src/error-codes.js';
import {
  ApiError,
  CliError,
  type ErrorKind,
  type ErrorReason,
  Interrupted,
  NetworkError,
  OutputError,
} from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { json, loopbackPerTest, refusedPort } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 16, item 5: every error envelope has a non-null, stable code: the service's errorCode when it gave one, else
// svcadm's own (README, "Error codes").

const loopback = loopbackPerTest();

/** The envelope on the last stderr line, and the run's exit code. */
async function envelope(argv: string[], options: Parameters<typeof runCli>[1] = {}) {
  const r = await runCli(argv, options);
  // After a question, the envelope follows it on its line (a terminal shows the typed answer between them).
  const last = (r.stderr.trimEnd().split('\n').at(-1) ?? '').replace(/^.*\[y\/N\] /, '');
  return { exit: r.code, stdout: r.stdout, error: (JSON.parse(last) as { error: Record<string, unknown> }).error };
}

describe('the code is derived in one place: explicit code, else reason, else kind', () => {
  it('a reason added later is its own code, a kind added later its own, never null', () => {
    const reason = 'stream_down' as ErrorReason;
    expect(errorCodeOf(new CliError('network', 'down since 10:02', { reason }))).toBe('stream_down');
    expect(errorCodeOf(new CliError('quota' as ErrorKind, 'over quota'))).toBe('quota');
  });

  it('reads the table for reasons and kinds whose name is not the code', () => {
    expect(errorCodeOf(new ApiError(403, 'too many streams', { reason: 'too_many_streams' }))).toBe('stream_limit');
    expect(errorCodeOf(new NetworkError('timed out', { reason: 'timeout' }))).toBe('timeout');
    expect(errorCodeOf(new ApiError(502, 'bad gateway', {}))).toBe('server_error');
    expect(errorCodeOf(new ApiError(409, 'conflict', {}))).toBe('rejected');
    expect(errorCodeOf(new OutputError('cannot write to stdout'))).toBe('output_failed');
    expect(errorCodeOf(new Interrupted('SIGTERM'))).toBe('terminated');
    expect(errorCodeOf(new Interrupted('SIGHUP'))).toBe('hung_up');
    expect(errorCodeOf(new TypeError('x is undefined'))).toBe('internal_error');
  });

  it("keeps the service's errorCode, unless it is not an identifier", () => {
    expect(errorCodeOf(new ApiError(404, 'x', { code: 'inexistent_user' }))).toBe('inexistent_user');
    expect(errorCodeOf(new ApiError(404, 'x', { code: '<b>oops</b>' }))).toBe('not_found');
    expect(errorCodeOf(new ApiError(404, 'x', { code: 'x'.repeat(65) }))).toBe('not_found');
  });
});

describe('local errors in the JSON envelope', () => {
  it('usage: an unknown option found by commander', async () => {
    const { exit, error } = await envelope(['policies', 'get', 'p1', '--nope', '-o', 'json']);
    expect({ exit, code: error.code }).toEqual({ exit: 2, code: 'usage' });
  });

  it('profile_not_found and config_invalid: a profile store that is not one', async () => {
    const dir = tempConfigDir();
    const missing = await envelope(['policies', 'get', 'p1', '-p', 'nope', '-o', 'json'], {
      env: { SVCADM_CONFIG_DIR: dir },
    });
    expect({ exit: missing.exit, code: missing.error.code }).toEqual({ exit: 2, code: 'profile_not_found' });
    writeFileSync(join(dir, 'profiles.json'), '{"profiles": ', { mode: 0o600 });
    const broken = await envelope(['policies', 'get', 'p1', '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(broken).toEqual({
      exit: 2,
      stdout: '',
      error: {
        status: null,
        code: 'config_invalid',
        message: `${join(dir, 'profiles.json')} is not valid JSON`,
        hint: 'repair or delete the file',
        exit_code: 2,
      },
    });
  });

  it('file_unreadable: an --input file that is not there, nothing sent', async () => {
    const server = await loopback([json(200, {})]);
    const { exit, error } = await envelope(
      ['api', '-X', 'POST', '/roles', '--input', '/nonexistent/role.json', '--yes', '-o', 'json'],
      { env: givenTokenEnv(server.url) },
    );
    expect({ exit, code: error.code }).toEqual({ exit: 2, code: 'file_unreadable' });
    expect(server.requests).toHaveLength(0);
  });

  it('not_confirmed: a question answered no, nothing sent', async () => {
    // The question is worded from reads (the connection, who has the address): nothing else is sent.
    const server = await loopback([
      json(200, { connections: [{ id: 'con_1', name: 'Users', strategy: 'auth0' }] }),
      json(200, []),
      json(204, ''),
    ]);
    const r = await envelope(['connections', 'delete-user', 'con_1', '--email', 'a@example.com', '-o', 'json'], {
      env: givenTokenEnv(server.url),
      tty: { stdin: true },
      stdin: 'n\n',
    });
    expect(r.error).toEqual({
      status: null,
      code: 'not_confirmed',
      message: 'not confirmed: nothing was deleted',
      exit_code: 2,
    });
    expect(server.requests.map((q) => q.method)).toEqual(['GET', 'GET']);
  });

  it('network: a refused connection after the retries', async () => {
    const port = await refusedPort();
    const { exit, error } = await envelope(['policies', 'get', 'p1', '--max-retries', '0', '-o', 'json'], {
      env: givenTokenEnv(`http://127.0.0.1:${port}`),
    });
    expect({ exit, code: error.code }).toEqual({ exit: 7, code: 'network' });
  });

  it('timeout: no answer within --timeout (on the virtual clock)', async () => {
    const clock = new VirtualClock();
    const server = await loopback([
      () => {
        clock.advance(2000);
      },
    ]);
    const { exit, error } = await envelope(
      ['policies', 'get', 'p1', '--max-retries', '0', '--timeout', '1s', '-o', 'json'],
      { env: givenTokenEnv(server.url), clock },
    );
    expect({ exit, code: error.code }).toEqual({ exit: 7, code: 'timeout' });
  });
});

describe("the service's own code", () => {
  it('is kept when the answer has one, and a status-derived one stands in when it has none', async () => {
    const server = await loopback([
      json(404, { statusCode: 404, message: 'The user does not exist.', errorCode: 'inexistent_user' }),
      json(404, { statusCode: 404, message: 'Not found' }),
      json(404, { statusCode: 404, message: 'Not found', errorCode: '\u001b[31mred' }),
    ]);
    const env = givenTokenEnv(server.url);
    const codes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await envelope(['users', 'permissions', 'db|u1', '-o', 'json'], { env })).error.code);
    }
    expect(codes).toEqual(['inexistent_user', 'not_found', 'not_found']);
  });
});

describe('the stream-limit 403', () => {
  it('keeps its own message and gets the code stream_limit (the service sends no errorCode)', async () => {
    const server = await loopback([
      json(403, {
        statusCode: 403,
        error: 'Forbidden',
        message: 'Maximum concurrent event stream connections reached. Please close existing connections.',
      }),
    ]);
    const { exit, stdout, error } = await envelope(['events', 'tail', '--max-events', '1', '-o', 'ndjson'], {
      env: givenTokenEnv(server.url),
    });
    expect({ exit, stdout, code: error.code, status: error.status, message: error.message }).toEqual({
      exit: 4,
      stdout: '',
      code: 'stream_limit',
      status: 403,
      message:
        'too many event streams are open at once for this tenant: Maximum concurrent event stream connections reached. Please close existing connections.',
    });
  });
});
