import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import {
  ACCESS_TOKEN,
  answerJson,
  type Behaviour,
  CLIENT_SECRET,
  hostileServerPerTest,
  raw,
  sse,
} from '../helpers/hostile-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

/** A token service that quotes the form it was sent in its refusal. */
const echoForm: Behaviour = (req, res) => {
  res.writeHead(401, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: 'access_denied', error_description: `bad form: ${req.body}` }));
};

/** An interface that quotes the Authorization header in its error, in plain text and as JSON would escape it. */
const echoAuthorization: Behaviour = (req, res) => {
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ message: `rejected header ${req.headers.authorization}`, errorCode: 'bad_header' }));
};

const SECRET = 'p@ss word+/&=Zq9"\\';

/** A token service that quotes the signed client assertion it was sent: whole, and its signature alone. */
const echoAssertion: Behaviour = (req, res) => {
  const assertion = new URLSearchParams(req.body).get('client_assertion') ?? '';
  const signature = assertion.split('.')[2] ?? '';
  res.writeHead(401, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      error: 'invalid_client',
      error_description: `bad assertion ${assertion}; signature ${signature}`,
    }),
  );
};

function privateKeyFile(): string {
  const path = join(tempConfigDir(), 'client.pem');
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  writeFileSync(path, pem, { mode: 0o600 });
  return path;
}

describe('credentials echoed back', () => {
  it('are scrubbed from the message of a refused token request, however the form encoded them', async () => {
    const server = await hostile({ token: echoForm });
    const env = server.env({ SVCADM_CLIENT_SECRET: SECRET });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env });
    expect(r.code).toBe(3);
    const audience = encodeURIComponent(`${server.url}/api/v2/`);
    expect(r.stderr).toBe(
      `svcadm: token request refused: bad form: grant_type=client_credentials&client_id=hostile-client&client_secret=[redacted]&audience=${audience} — check SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET\n`,
    );
  });

  it('scrub the signed client assertion as they scrub the client secret, from the message and the --debug trace', async () => {
    for (const token of [echoForm, echoAssertion]) {
      const server = await hostile({ token });
      const env = { ...server.env(), SVCADM_CLIENT_SECRET: undefined, SVCADM_CLIENT_ASSERTION_KEY: privateKeyFile() };
      const r = await runCli(['policies', 'get', 'rlp_1'], { env });
      expect(r.code).toBe(3);
      const audience = encodeURIComponent(`${server.url}/api/v2/`);
      const type = encodeURIComponent('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(r.stderr).toBe(
        token === echoForm
          ? `svcadm: token request refused: bad form: grant_type=client_credentials&client_id=hostile-client&client_assertion_type=${type}&client_assertion=[redacted]&audience=${audience} — check SVCADM_CLIENT_ID and SVCADM_CLIENT_ASSERTION_KEY\n`
          : 'svcadm: token request refused: bad assertion [redacted]; signature [redacted] — check SVCADM_CLIENT_ID and SVCADM_CLIENT_ASSERTION_KEY\n',
      );
      const traced = await runCli(['policies', 'get', 'rlp_1', '--debug', '-o', 'json'], { env });
      expect(traced.stderr).not.toMatch(/eyJ/);
    }
  });

  it('are scrubbed from the JSON error envelope', async () => {
    const server = await hostile({ token: echoForm });
    const r = await runCli(['policies', 'get', 'rlp_1', '-o', 'json'], {
      env: server.env({ SVCADM_CLIENT_SECRET: SECRET }),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain(encodeURIComponent(SECRET));
    expect(r.stderr).not.toContain(new URLSearchParams({ s: SECRET }).toString().slice(2));
    expect(JSON.parse(r.stderr).error.message).toContain('client_secret=[redacted]&audience=');
  });

  it('are scrubbed from an API error quoting the Authorization header, and from the --debug trace', async () => {
    const server = await hostile({ api: echoAuthorization });
    const r = await runCli(['policies', 'get', 'rlp_1', '--debug'], { env: server.env() });
    expect(r.code).toBe(8);
    expect(r.stderr).not.toContain(ACCESS_TOKEN);
    expect(r.stderr).not.toContain(CLIENT_SECRET);
    expect(r.stderr.split('\n').at(-2)).toBe(
      'svcadm: the service rejected the request: rejected header Bearer [redacted]',
    );
  });

  it('are scrubbed from a stream error the service reports', async () => {
    const server = await hostile({
      api: sse(`event: error\ndata: {"error":{"code":"processing_error","message":"failed for ${ACCESS_TOKEN}"}}\n\n`),
    });
    const env = server.env();
    const clock = new VirtualClock(Date.UTC(2026, 2, 1, 12));
    const r = await runCli(['events', 'tail', '--max-reconnects', '0'], { env, clock });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      [
        'svcadm: the service reported a stream error (processing_error): failed for [redacted]',
        `svcadm: stream error processing_error: failed for [redacted] — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --since 2026-03-01T11:59:00Z`,
        '',
      ].join('\n'),
    );
  });
});

describe('--debug traces', () => {
  it('neutralise the reason phrase and header values, and never show a token the server sends back', async () => {
    const server = await hostile({
      api: raw(
        Buffer.concat([
          Buffer.from(`HTTP/1.1 503 Bearer ${ACCESS_TOKEN} \u001b]0;pwned\u0007\r\nX-RateLimit-Limit: 10`),
          Buffer.from([0x9b, 0x33, 0x31, 0x6d]),
          Buffer.from('\r\nX-RateLimit-Remaining: 0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'),
        ]),
      ),
    });
    const r = await runCli(['policies', 'get', 'rlp_1', '--debug', '--max-retries', '0'], { env: server.env() });
    expect(r.code).toBe(7);
    const trace = r.stderr.split('\n').filter((l) => l.startsWith('svcadm: debug: GET '));
    expect(trace).toHaveLength(1);
    expect(trace[0]).toMatch(
      /^svcadm: debug: GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/rate-limit-policies\/rlp_1 → 503 Bearer \[redacted\] \\x1b\]0;pwned\\x07 in \d+ ms, rate limit 0\/10\\x9b31m$/,
    );
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('answers that are fine', () => {
  it('are not touched by the scrubbing', async () => {
    const server = await hostile({ api: answerJson(404, { message: 'The rate limit policy does not exist.' }) });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: server.env() });
    expect(r).toEqual({
      code: 5,
      stdout: '',
      stderr: `svcadm: rate limit policy not found: The rate limit policy does not exist. — \`svcadm --domain ${server.url} policies list\` shows the ids\n`,
    });
  });
});
