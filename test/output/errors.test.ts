import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { refusedPort, startPlainTcp } from '../helpers/loopback-server.js';
import { givenTokenEnv, runCli, tempConfigDir } from '../helpers/run-cli.js';

describe('where a newcomer trips', () => {
  it('--domain host:port to a plain-http server suggests http:// instead of printing OpenSSL text', async () => {
    const plain = await startPlainTcp();
    try {
      const { port } = plain;
      const r = await runCli(['policies', 'get', 'rlp_1', '--domain', `127.0.0.1:${port}`], {
        env: { SVCADM_TOKEN: 't', SVCADM_CONFIG_DIR: tempConfigDir() },
      });
      expect(r).toEqual({
        code: 7,
        stdout: '',
        stderr: `svcadm: the server at 127.0.0.1:${port} does not speak TLS (is it plain http?) — for a server on this machine without TLS, use --domain http://127.0.0.1:${port}\n`,
      });
      expect(plain.connections()).toBe(1); // not retried: it cannot help
    } finally {
      await plain.close();
    }
  });

  it('says once that it is trying a refused connection again, and not with --quiet', async () => {
    const port = await refusedPort();
    const env = givenTokenEnv(`http://127.0.0.1:${port}`);
    const clock = new VirtualClock();
    const r = await runCli(['policies', 'get', 'rlp_1', '--max-retries', '3'], { env, clock });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        `svcadm: connection refused by 127.0.0.1:${port}; trying again (at most 3 times, see --max-retries)\n` +
        `svcadm: connection refused by 127.0.0.1:${port} (after 3 retries)\n`,
    });
    expect(clock.sleeps).toHaveLength(3);
    const quiet = await runCli(['policies', 'get', 'rlp_1', '--max-retries', '3', '-q'], { env });
    expect(quiet.stderr).toBe(`svcadm: connection refused by 127.0.0.1:${port} (after 3 retries)\n`);
  });
});
