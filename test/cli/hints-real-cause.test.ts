import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { answerJson, type HostileServer, startHostileServer } from '../helpers/hostile-server.js';
import { type RunningProxy, startProxy } from '../helpers/proxy-server.js';
import { requireProgram } from '../helpers/requires.js';
import { runBin, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { certificateFor, type NamedCertificate } from '../helpers/tls-name.js';

// Issue 29, point 4: each hint names the real cause of the failure, and what to run about it.

let emu: TestEmulator;
let dir: string;
withFileEmulator((each) => ({ emu, configDir: dir } = each));
const env = () => ({ ...emu.env, SVCADM_CONFIG_DIR: dir });
const closeAfterTest = closeAfterEach();

describe('a token refused for its audience', () => {
  it('points to --audience and SVCADM_AUDIENCE, not to the client id and secret', async () => {
    const refusing = await startHostileServer({
      token: (req, res) =>
        answerJson(403, {
          error: 'access_denied',
          error_description: `Service not enabled within domain: ${new URLSearchParams(req.body).get('audience')}`,
        })(req, res),
    });
    closeAfterTest(refusing);
    const r = await runCli(['policies', 'list'], { env: refusing.env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `svcadm: token request refused: Service not enabled within domain: ${refusing.url}/api/v2/ — ` +
        `the token service does not know the audience ${refusing.url}/api/v2/ (the default, from the tenant domain): ` +
        "give the API's identifier with --audience or SVCADM_AUDIENCE (behind a custom domain, the tenant's original domain: https://<tenant>/api/v2/)\n",
    );
  });
});

describe('a policy or a connection that is not there', () => {
  it('policies get of an unknown id points to svcadm policies list', async () => {
    const r = await runCli(['policies', 'get', 'rlp_nothere'], { env: env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      `svcadm: rate limit policy not found: The rate limit policy does not exist. — \`svcadm --domain ${emu.url} policies list\` shows the ids\n`,
    );
  });

  it('delete-user on an unknown connection points to svcadm connections list --strategy auth0', async () => {
    const r = await runCli(['connections', 'delete-user', 'con_nothere', '--email', 'a@b.c', '--yes'], {
      env: env(),
    });
    expect(r.code).toBe(5);
    const id = /^Correlation id: (\S+)\n/.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      `Correlation id: ${id}\nsvcadm: connection con_nothere not found: The connection does not exist — \`svcadm --domain ${emu.url} connections list --strategy auth0\` shows the database connections; correlation id ${id}\n`,
    );
  });

  it('delete-user on a connection that is not a database connection points there too', async () => {
    const r = await runCli(
      ['connections', 'delete-user', emu.fixtures.nonDatabaseConnectionId, '--email', 'a@b.c', '--yes'],
      { env: env() },
    );
    expect(r.code).toBe(8);
    const id = /^Correlation id: (\S+)\n/.exec(r.stderr)?.[1];
    expect(r.stderr).toBe(
      `Correlation id: ${id}\nsvcadm: the service rejected the request: Connection must be a database connection — only a database connection holds users to delete: \`svcadm --domain ${emu.url} connections list --strategy auth0\` lists them; correlation id ${id}\n`,
    );
  });
});

describe('a profile name that is not found', () => {
  it('-p with a typo gets a did-you-mean', async () => {
    for (const name of ['staging', 'prod']) {
      const add = await runCli(
        [
          'profiles',
          'add',
          name,
          '--domain',
          emu.url,
          '--client-id',
          'c',
          '--client-secret-stdin',
          '--no-verify',
          '--insecure-storage',
        ],
        { env: { SVCADM_CONFIG_DIR: dir }, stdin: 's' },
      );
      expect(add.code, add.stderr).toBe(0);
    }
    const r = await runCli(['-p', 'stagign', 'policies', 'list'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: no profile named 'stagign' in ${dir} — did you mean 'staging'? (known profiles: staging, prod)\n`,
    });
    const use = await runCli(['profiles', 'use', 'prd'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(use).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: no profile named 'prd' in ${dir} — did you mean 'prod'? (known profiles: staging, prod)\n`,
    });
    const far = await runCli(['profiles', 'show', 'zzzzzz'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(far.stderr).toBe(`svcadm: no profile named 'zzzzzz' in ${dir} — known profiles: staging, prod\n`);
  });
});

describe('a list checkpoint that expired', () => {
  it('says to start from the first page', async () => {
    const first = await runCli(['connections', 'list', '--take', '1', '-o', 'json'], { env: env() });
    const next = JSON.parse(first.stdout).next as string;
    await emu.expireCursors();
    const r = await runCli(['connections', 'list', '--take', '1', '--from', next], { env: env() });
    expect(r.code).toBe(8);
    expect(r.stderr).toBe(
      'svcadm: the service rejected the request: Invalid pagination cursor — a checkpoint lasts 24 hours: start again from the first page, without --from\n',
    );
  });
});

describe('an expired or rejected stream cursor', () => {
  it('an expired cursor: the hint to restart keeps --cursor-file', async () => {
    const { offsets } = await emu.emit('user.created', 1);
    await emu.expireCursors();
    const cursorFile = join(tempConfigDir(), 'cursor');
    writeFileSync(cursorFile, `${offsets[0]}\n`, { mode: 0o600 });
    const r = await runCli(['events', 'tail', '--cursor-file', cursorFile], { env: env() });
    expect(r.code).toBe(8);
    expect(r.stderr).toBe(
      'svcadm: the cursor has expired: Cursor points to data no longer available in the stream. — ' +
        `restart with --since (e.g. \`svcadm --domain ${emu.url} events tail --since 1h --cursor-file ${cursorFile}\`)\n`,
    );
  });

  /** A service that restarted with no memory of the cursors it gave: 400 invalid_cursor on /events. */
  async function forgetfulService(): Promise<HostileServer> {
    const server = await startHostileServer({
      api: answerJson(400, {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Invalid cursor format.',
        errorCode: 'invalid_cursor',
      }),
    });
    closeAfterTest(server);
    return server;
  }
  const OFFSET = 'ZXYxOjA6bDM6ZGdqNWRj';

  it('a cursor the service no longer knows (it restarted): where the cursor came from, and a resume line', async () => {
    // A real restart: the same emulator (seed, port, clients) started again, without the live events it had.
    const options = { host: '127.0.0.1', control: true, seed: 4242, eventRate: 0 };
    const before = await startEmulator({ ...options, port: 0 });
    const port = Number(new URL(before.url).port);
    const emitted = await fetch(`${before.url}/__emulator/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'user.created', count: 3 }),
    });
    const { offsets } = (await emitted.json()) as { offsets: string[] };
    await before.close();
    const after = await startEmulator({ ...options, port });
    closeAfterTest(after);
    const cursorFile = join(tempConfigDir(), 'cursor');
    writeFileSync(cursorFile, `${offsets.at(-1)}\n`, { mode: 0o600 });
    const r = await runCli(['events', 'tail', '--cursor-file', cursorFile], {
      env: { ...after.env, SVCADM_CONFIG_DIR: tempConfigDir() },
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toBe(
      'svcadm: the service rejected the request: Invalid cursor format. — ' +
        `the cursor came from the cursor file ${cursorFile}; the service does not know it (it may have restarted, or the cursor is from another tenant): ` +
        `resume from a time with \`svcadm --domain ${after.url} events tail --since 1h --cursor-file ${cursorFile}\`\n`,
    );
  });

  it('a cursor given with --from: said so, and the resume line keeps --type', async () => {
    const server = await forgetfulService();
    const r = await runCli(['events', 'tail', '--from', OFFSET, '--type', 'user.created'], { env: server.env() });
    expect(r.code).toBe(8);
    expect(r.stderr).toBe(
      'svcadm: the service rejected the request: Invalid cursor format. — ' +
        'the cursor came from --from; the service does not know it (it may have restarted, or the cursor is from another tenant): ' +
        `resume from a time with \`svcadm --domain ${server.url} events tail --since 1h --type user.created\`\n`,
    );
  });
});

const openssl = requireProgram('openssl');
describe.skipIf(openssl.missing)(openssl.title('a TLS certificate that cannot be verified'), () => {
  const NAME = 'tenant.test';
  let cert: NamedCertificate;
  beforeAll(() => {
    cert = certificateFor(NAME);
  });

  it('points to NODE_EXTRA_CA_CERTS, through a proxy as well', async () => {
    const server: HostileServer = await startHostileServer({}, { tls: { key: cert.key, cert: cert.cert, name: NAME } });
    closeAfterTest(server);
    const via: RunningProxy = await startProxy({ names: { [NAME]: '127.0.0.1' } });
    closeAfterTest(via);
    const r = await runBin(['policies', 'list'], server.env({ HTTPS_PROXY: via.address }));
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `svcadm: TLS failure talking to ${new URL(server.url).host}: unable to verify the first certificate — the certificate is not signed by a CA this machine trusts: ` +
        'for a private or corporate CA, set NODE_EXTRA_CA_CERTS to its PEM file (and check the tenant domain)\n',
    );
  });
});
