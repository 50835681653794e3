import { beforeAll, describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { POLICY } from '../helpers/fixture-tenant.js';
import {
  ACCESS_TOKEN,
  answerJson,
  CLIENT_SECRET,
  type HostileServer,
  sse,
  sseMessage,
  startHostileServer,
} from '../helpers/hostile-server.js';
import { refusedPort } from '../helpers/loopback-server.js';
import { type RunningProxy, startProxy, startSilentProxy } from '../helpers/proxy-server.js';
import { requireProgram } from '../helpers/requires.js';
import { runBin, runCli } from '../helpers/run-cli.js';
import { certificateFor, type NamedCertificate } from '../helpers/tls-name.js';

// A tenant under a made-up name (tenant.test) over TLS, with a certificate from a CA made here and trusted through
// NODE_EXTRA_CA_CERTS, reached through a real proxy that alone knows the name. Loopback never goes through a proxy,
// hence the made-up name.

const openssl = requireProgram('openssl');
const NAME = 'tenant.test';
let cert: NamedCertificate;
const closeAfterTest = closeAfterEach();

beforeAll(() => {
  if (!openssl.missing) cert = certificateFor(NAME);
});

async function tenant(routes: Parameters<typeof startHostileServer>[0]): Promise<HostileServer> {
  const server = await startHostileServer(routes, { tls: { key: cert.key, cert: cert.cert, name: NAME } });
  closeAfterTest(server);
  return server;
}

async function proxy(options: Parameters<typeof startProxy>[0] = {}): Promise<RunningProxy> {
  const running = await startProxy({ names: { [NAME]: '127.0.0.1' }, ...options });
  closeAfterTest(running);
  return running;
}

const policyJson = `${JSON.stringify(POLICY, null, 2)}\n`;

describe.skipIf(openssl.missing)(openssl.title('through a real proxy, to a tenant it alone can resolve'), () => {
  it('policies get: the token and the interface go through it; Proxy-Authorization goes to the proxy only', async () => {
    const server = await tenant({ api: answerJson(200, POLICY) });
    const via = await proxy({ credentials: { user: 'ada', password: 'p@ss word' } });
    const r = await runBin(
      ['policies', 'get', POLICY.id, '-o', 'json'],
      server.env({ HTTPS_PROXY: `http://ada:p%40ss%20word@${via.address}`, NODE_EXTRA_CA_CERTS: cert.caFile }),
    );
    expect(r).toEqual({ code: 0, stdout: policyJson, stderr: '' });
    expect(server.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      'POST /oauth/token',
      `GET /api/v2/rate-limit-policies/${POLICY.id}`,
    ]);
    expect(server.requests.map((q) => q.headers['proxy-authorization'])).toEqual([undefined, undefined]);
    expect(via.connects.length).toBeGreaterThan(0);
    for (const seen of via.connects) {
      expect(seen).toEqual({
        target: `${NAME}:${server.url.split(':')[2]}`,
        proxyAuthorization: `Basic ${Buffer.from('ada:p@ss word').toString('base64')}`,
      });
    }
  });

  it('events tail: the stream goes through it (lower-case https_proxy, a proxy URL without a scheme)', async () => {
    const event = { id: 'evt_0000000000000001', type: 'user.created', time: '2025-06-05T11:00:00Z' };
    const data = JSON.stringify({ offset: 'c1', event });
    const server = await tenant({ api: sse(sseMessage('c1', 'user.created', data), { keepOpen: true }) });
    const via = await proxy();
    const r = await runBin(
      ['events', 'tail', '--max-events', '1', '-o', 'ndjson'],
      server.env({ https_proxy: via.address, NODE_EXTRA_CA_CERTS: cert.caFile }),
    );
    expect(r).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ type: 'user.created', offset: 'c1', event })}\n`,
      stderr: '',
    });
    expect(server.apiRequests().map((q) => q.path)).toEqual(['/api/v2/events']);
    expect(via.connects.length).toBeGreaterThan(0);
  });

  it('--debug names the proxy on every request, never its password', async () => {
    const server = await tenant({ api: answerJson(200, POLICY) });
    const via = await proxy({ credentials: { user: 'ada', password: 'hunter2' } });
    const r = await runBin(
      ['--debug', 'policies', 'get', POLICY.id, '-o', 'json'],
      server.env({ HTTPS_PROXY: `http://ada:hunter2@${via.address}`, NODE_EXTRA_CA_CERTS: cert.caFile }),
    );
    expect(r.code).toBe(0);
    const requests = r.stderr.split('\n').filter((line) => / → \d{3} /.test(line));
    expect(requests.map((line) => line.replace(/ in \d+ ms.*$/, ''))).toEqual([
      `svcadm: debug: POST ${server.url}/oauth/token (grant_type=client_credentials client_id=hostile-client client_secret=[redacted] audience=${server.url}/api/v2/) via proxy ${via.address} → 200 OK`,
      `svcadm: debug: GET ${server.url}/api/v2/rate-limit-policies/${POLICY.id} via proxy ${via.address} → 200 OK`,
    ]);
    expect(r.stderr).not.toContain('hunter2');
  });

  it('NO_PROXY naming the tenant sends it directly (and so, here, to a name that does not resolve)', async () => {
    const server = await tenant({ api: answerJson(200, POLICY) });
    const via = await proxy();
    for (const noProxy of [NAME, `.${NAME.split('.')[1]}`, '*', `${NAME}:${server.url.split(':')[2]}`]) {
      const r = await runBin(
        ['policies', 'get', POLICY.id, '--max-retries', '0'],
        server.env({ HTTPS_PROXY: via.address, NO_PROXY: `example.com, ${noProxy}`, NODE_EXTRA_CA_CERTS: cert.caFile }),
      );
      expect({ noProxy, ...r }).toEqual({
        noProxy,
        code: 7,
        stdout: '',
        stderr: `svcadm: cannot resolve ${NAME} — check the tenant domain\n`,
      });
    }
    expect(via.connects).toEqual([]);
  });
});

describe('a proxy that fails', () => {
  const env = (proxyUrl: string) => ({
    SVCADM_DOMAIN: `https://${NAME}`,
    SVCADM_CLIENT_ID: 'c',
    SVCADM_CLIENT_SECRET: CLIENT_SECRET,
    HTTPS_PROXY: proxyUrl,
  });

  it('asking for authentication: exit 7, naming the proxy', async () => {
    const via = await proxy({ credentials: { user: 'ada', password: 'right' } });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: env(`http://${via.address}`) });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the proxy ${via.address} (HTTPS_PROXY) asks for authentication (407 Proxy Authentication Required) — put them in the proxy URL: HTTPS_PROXY=http://user:password@${via.address}\n`,
    });
  });

  it('refusing the credentials: exit 7, the password nowhere', async () => {
    const via = await proxy({ credentials: { user: 'ada', password: 'right' } });
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: env(`http://ada:wrong-Pw7@${via.address}`) });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the proxy ${via.address} (HTTPS_PROXY) refused the credentials it was given (407 Proxy Authentication Required) — put them in the proxy URL: HTTPS_PROXY=http://user:password@${via.address}\n`,
    });
  });

  it('refusing the tunnel (a name it cannot resolve): exit 7, naming the proxy and the target', async () => {
    const via = await startProxy();
    closeAfterTest(via);
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: env(`http://${via.address}`) });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the proxy ${via.address} (HTTPS_PROXY) refused to connect to ${NAME} (404 Not Found) — check HTTPS_PROXY, or add ${NAME} to NO_PROXY to reach it directly\n`,
    });
  });

  it('unreachable: exit 7, naming the proxy without its password', async () => {
    const port = await refusedPort();
    const r = await runCli(['policies', 'get', 'rlp_1', '--max-retries', '0'], {
      env: env(`http://ada:s3cret-Pw@127.0.0.1:${port}`),
    });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: cannot reach the proxy 127.0.0.1:${port} (HTTPS_PROXY): connection refused — check HTTPS_PROXY, or add ${NAME} to NO_PROXY to reach it directly\n`,
    });
  });

  it('a proxy variable that is not a URL: exit 2, nothing sent', async () => {
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: env('socks5://127.0.0.1:1080') });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: HTTPS_PROXY names a socks5 proxy; svcadm speaks to http:// and https:// proxies\n`,
    });
  });
});

describe('a proxy that accepts and never answers CONNECT', () => {
  const env = (address: string) => ({
    SVCADM_DOMAIN: `https://${NAME}`,
    SVCADM_CLIENT_ID: 'c',
    SVCADM_CLIENT_SECRET: CLIENT_SECRET,
    HTTPS_PROXY: `http://ada:s3cret-Pw@${address}`,
  });
  const hint = `check HTTPS_PROXY, or add ${NAME} to NO_PROXY to reach it directly`;

  /** A silent proxy that calls `then(count)` at each CONNECT it receives (and leaves unanswered). */
  async function silent(then: (count: number) => void) {
    const via = await startSilentProxy(then);
    closeAfterTest(via);
    return via;
  }

  it('--timeout ends the tunnel: exit 7, naming the proxy as host:port, never its password', async () => {
    const clock = new VirtualClock();
    const via = await silent(() => clock.advance(5000));
    const r = await runCli(['policies', 'get', 'rlp_1', '--timeout', '5s', '--max-retries', '0'], {
      env: env(via.address),
      clock,
    });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the proxy ${via.address} (HTTPS_PROXY) did not answer CONNECT to ${NAME}:443 within 5s — raise --timeout; ${hint}\n`,
    });
    expect(via.connects()).toBe(1);
  });

  it('--max-retries: each retry opens a new tunnel, each ended by --timeout; then exit 7', async () => {
    const clock = new VirtualClock();
    const via = await silent(() => clock.advance(2000));
    const r = await runCli(['policies', 'get', 'rlp_1', '--timeout', '2s', '--max-retries', '2'], {
      env: env(via.address),
      clock,
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').at(-2)).toBe(
      `svcadm: the proxy ${via.address} (HTTPS_PROXY) did not answer CONNECT to ${NAME}:443 within 2s (after 2 retries) — raise --timeout; ${hint}`,
    );
    expect(via.connects()).toBe(3);
  });

  it('SIGTERM ends the tunnel: exit 143', async () => {
    const interrupt = new AbortController();
    const via = await silent(() => interrupt.abort(new Interrupted('SIGTERM')));
    const r = await runCli(['policies', 'get', 'rlp_1'], { env: env(via.address), interrupt: interrupt.signal });
    expect(r).toEqual({ code: 143, stdout: '', stderr: 'svcadm: terminated\n' });
  });

  it('events tail --duration ends the tunnel of the stream itself (a given token): exit 7, down since the start', async () => {
    const clock = new VirtualClock(Date.parse('2026-11-25T12:00:00Z'));
    const via = await silent(() => clock.advance(5000));
    const r = await runCli(['events', 'tail', '--duration', '5s', '--since', '1h', '-o', 'ndjson'], {
      env: { SVCADM_DOMAIN: `https://${NAME}`, SVCADM_TOKEN: ACCESS_TOKEN, HTTPS_PROXY: `http://${via.address}` },
      clock,
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the event stream has been down since 2026-11-25T12:00:00Z, never connected');
    expect(via.connects()).toBe(1);
  });

  it('events tail --duration ends the tunnel of the token request: exit 7, down since the start', async () => {
    const clock = new VirtualClock(Date.parse('2026-11-25T12:00:00Z'));
    const via = await silent(() => clock.advance(5000));
    const r = await runCli(['events', 'tail', '--duration', '5s', '--since', '1h', '-o', 'ndjson'], {
      env: env(via.address),
      clock,
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the event stream has been down since 2026-11-25T12:00:00Z, never connected');
  });
});

describe('events tail --forward-to', () => {
  it('never sends to the app through the proxy, even an app under a name that is not loopback', async () => {
    const event = { id: 'evt_0000000000000001', type: 'user.created', time: '2025-06-05T11:00:00Z' };
    const data = JSON.stringify({ offset: 'c1', event });
    const server = await startHostileServer({ api: sse(sseMessage('c1', 'user.created', data), { keepOpen: true }) });
    closeAfterTest(server);
    const port = await refusedPort();
    const r = await runCli(
      [
        'events',
        'tail',
        '--forward-to',
        'https://app.test/hook',
        '--forward-secret',
        'fwsec_0123456789abcdef',
        '--max-retries',
        '0',
      ],
      { env: server.env({ HTTPS_PROXY: `127.0.0.1:${port}` }) },
    );
    // Straight to app.test, which does not resolve: through the proxy it would have been "cannot reach the proxy".
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('cannot resolve app.test');
    expect(r.stderr).not.toContain('proxy');
  });
});

describe('loopback', () => {
  it('never goes through a proxy, whatever the variables say', async () => {
    const server = await startHostileServer({ api: answerJson(200, POLICY) });
    closeAfterTest(server);
    const port = await refusedPort();
    const r = await runCli(['policies', 'get', POLICY.id, '-o', 'json'], {
      env: server.env({ HTTPS_PROXY: `127.0.0.1:${port}`, HTTP_PROXY: `127.0.0.1:${port}`, NO_PROXY: '' }),
    });
    expect(r).toEqual({ code: 0, stdout: policyJson, stderr: '' });
    expect(server.requests.map((q) => q.headers.authorization ?? 'token request')).toEqual([
      'token request',
      `Bearer ${ACCESS_TOKEN}`,
    ]);
  });
});
