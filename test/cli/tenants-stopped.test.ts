import { spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CLIENT_ID, CLIENT_SECRET, hostileServerPerTest, type SeenRequest } from '../helpers/hostile-server.js';
import { BIN, type CliResult, configWithProfiles } from '../helpers/run-cli.js';

/**
 * A delete across tenants stopped by a signal sent to the real process while one tenant's DELETE is unanswered
 * (issue 38 point 5): every tenant's outcome is reported in every format, then the exit names the signal. `gone`
 * answers 204; `hangs` takes the DELETE and never answers (the signal is sent once it has it); `later` is never
 * reached (`--parallel 1`).
 */
const hostile = hostileServerPerTest();
const CONNECTION = 'con_stop0000000001';

function deleteRoute(onDelete: (res: ServerResponse) => void) {
  return (req: SeenRequest, res: ServerResponse) => {
    if (req.method === 'DELETE') return onDelete(res);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not found"}');
  };
}

/** Runs the built svcadm; `signal` is sent to it once `hangs` holds its DELETE. */
async function stoppedDelete(signal: 'SIGTERM' | 'SIGINT', format: string): Promise<CliResult & { hosts: string[] }> {
  let send: () => void = () => {};
  const gone = await hostile({ api: deleteRoute((res) => res.writeHead(204).end()) });
  const hangs = await hostile({ api: deleteRoute(() => send()) });
  const later = await hostile({ api: deleteRoute((res) => res.writeHead(204).end()) });
  const profile = (url: string) => ({ domain: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  const dir = configWithProfiles({ gone: profile(gone.url), hangs: profile(hangs.url), later: profile(later.url) });
  const argv = [
    ...['--profiles', '*', '--parallel', '1', '--max-retries', '0', '-o', format],
    ...['connections', 'delete-user', CONNECTION, '--email', 'alice@example.com', '--yes', '--correlation-id', 'job-9'],
  ];
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVCADM_CONFIG_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  send = () => child.kill(signal);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  expect(later.apiRequests()).toEqual([]);
  return { code, stdout, stderr, hosts: [gone, hangs, later].map((s) => new URL(s.url).host) };
}

describe('a delete across tenants stopped by a signal', () => {
  for (const [signal, code, word] of [
    ['SIGTERM', 143, 'terminated'],
    ['SIGINT', 130, 'interrupted'],
  ] as const) {
    it(`${signal}, json: the whole array, gone / outcome unknown / cancelled, then exit ${code}`, async () => {
      const r = await stoppedDelete(signal, 'json');
      const [gone, hangs, later] = r.hosts;
      expect(r.code).toBe(code);
      expect(JSON.parse(r.stdout)).toEqual([
        {
          profile: 'gone',
          domain: gone,
          result: {
            connection_id: CONNECTION,
            email: 'alice@example.com',
            outcome: 'gone',
            status: 204,
            correlation_id: 'job-9',
          },
        },
        {
          profile: 'hangs',
          domain: hangs,
          error: {
            status: null,
            code: word,
            message: `${word}: the DELETE was sent; its outcome is unknown`,
            hint: 'correlation id job-9',
            exit_code: code,
          },
        },
        {
          profile: 'later',
          domain: later,
          error: { status: null, code: 'cancelled', message: `stopped by ${signal}`, exit_code: null },
        },
      ]);
      expect(r.stderr).toBe(
        '{"profile":"gone","correlation_id":"job-9"}\n' +
          '{"profile":"hangs","correlation_id":"job-9"}\n' +
          `{"error":{"status":null,"code":"${word}","message":"${word}","exit_code":${code}}}\n`,
      );
    });
  }

  it('SIGTERM, yaml: the same entries, then exit 143', async () => {
    const r = await stoppedDelete('SIGTERM', 'yaml');
    const [gone, hangs, later] = r.hosts;
    expect(r.code).toBe(143);
    expect(r.stdout).toBe(
      [
        '- profile: gone',
        `  domain: ${gone}`,
        '  result:',
        `    connection_id: ${CONNECTION}`,
        '    email: alice@example.com',
        '    outcome: gone',
        '    status: 204',
        '    correlation_id: job-9',
        '- profile: hangs',
        `  domain: ${hangs}`,
        '  error:',
        '    status: null',
        '    code: terminated',
        '    message: "terminated: the DELETE was sent; its outcome is unknown"',
        '    hint: correlation id job-9',
        '    exit_code: 143',
        '- profile: later',
        `  domain: ${later}`,
        '  error:',
        '    status: null',
        '    code: cancelled',
        '    message: stopped by SIGTERM',
        '    exit_code: null',
        '',
      ].join('\n'),
    );
  });

  it('SIGTERM, ndjson: a line per tenant, then exit 143', async () => {
    const r = await stoppedDelete('SIGTERM', 'ndjson');
    expect(r.code).toBe(143);
    expect(r.stdout).toBe(
      `{"profile":"gone","item":{"connection_id":"${CONNECTION}","email":"alice@example.com","outcome":"gone","status":204,"correlation_id":"job-9"}}\n` +
        '{"profile":"hangs","error":{"status":null,"code":"terminated","message":"terminated: the DELETE was sent; its outcome is unknown","hint":"correlation id job-9","exit_code":143}}\n' +
        '{"profile":"later","error":{"status":null,"code":"cancelled","message":"stopped by SIGTERM","exit_code":null}}\n',
    );
  });

  it('SIGINT, table: the gone tenant on stdout, the two others a line each on stderr, then exit 130', async () => {
    const r = await stoppedDelete('SIGINT', 'table');
    expect(r.code).toBe(130);
    expect(r.stdout).toBe(`gone: No user alice@example.com remains in connection ${CONNECTION}\n`);
    expect(r.stderr).toBe(
      [
        'gone: Correlation id: job-9',
        'hangs: Correlation id: job-9',
        'svcadm: hangs: interrupted: the DELETE was sent; its outcome is unknown — correlation id job-9',
        'svcadm: later: stopped by SIGINT',
        'svcadm: interrupted',
        '',
      ].join('\n'),
    );
  });
});
