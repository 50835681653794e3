import { describe, expect, it } from 'vitest';
import { answerJson, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

// A token service that fails (5xx) is named as such, with the URL the token was asked of: "the service failed" alone
// sent people looking at the interface, which was never reached.

const hostile = hostileServerPerTest();
const policy = answerJson(200, { id: 'rlp_1', resource: 'oauth_authentication_api', consumer: 'client' });

describe('a token service answering 5xx', () => {
  it('with a body: the token request and its URL, the service text neutralised, exit 7, the interface untouched', async () => {
    const server = await hostile({
      token: answerJson(503, { error: 'temporarily_unavailable', error_description: 'down\u001b[2J for repairs' }),
      api: policy,
    });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env() });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the token request to ${server.url}/oauth/token failed: down\\x1b[2J for repairs (still 503 after 5 retries)\n`,
    });
    expect(server.apiRequests()).toEqual([]);
  });

  it('without a body: the status stands for the text; as data, the envelope says the same', async () => {
    const server = await hostile({
      token: (_req, res) => {
        res.writeHead(502);
        res.end();
      },
      api: policy,
    });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], { env: server.env() });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `${JSON.stringify({
        error: {
          status: 502,
          code: 'server_error',
          message: `the token request to ${server.url}/oauth/token failed: 502 Bad Gateway (still 502 after 5 retries)`,
          exit_code: 7,
        },
      })}\n`,
    );
  });
});
