import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { answerJson, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

const START = Date.UTC(2026, 10, 23, 21, 0, 0);
const keyPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

function keyFile(): string {
  const path = join(tempConfigDir(), 'client.pem');
  writeFileSync(path, keyPem, { mode: 0o600 });
  return path;
}

/** The token service refuses with `description`, its Date header `aheadMs` ahead of this machine's clock. */
function refusal(description: string, aheadMs: number) {
  return answerJson(
    401,
    { error: 'invalid_client', error_description: description },
    { date: new Date(START + aheadMs).toUTCString() },
  );
}

async function withKey(description: string, aheadMs: number) {
  const server = await hostile({ token: refusal(description, aheadMs) });
  const env = { ...server.env(), SVCADM_CLIENT_SECRET: undefined, SVCADM_CLIENT_ASSERTION_KEY: keyFile() };
  return runCli(['policies', 'get', 'rlp_1'], { env, clock: new VirtualClock(START) });
}

describe('a private-key refusal about time (issue 17, item 10)', () => {
  it('says the clock may be off and by how much, from the token service Date header', async () => {
    const r = await withKey('The client_assertion has expired', 125_000);
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr:
        "svcadm: token request refused: The client_assertion has expired — the refusal is about time: this machine's clock may be off (2 min behind the token service's); set it right (NTP) and try again\n",
    });
  });

  it('says so for an assertion from the future, ahead of the token service', async () => {
    const r = await withKey('The client_assertion iat is in the future', -90_000);
    expect(r.stderr).toBe(
      "svcadm: token request refused: The client_assertion iat is in the future — the refusal is about time: this machine's clock may be off (90s ahead of the token service's); set it right (NTP) and try again\n",
    );
  });

  it('says so for a refusal in other words when the clocks differ by more than the 10 s the service tolerates', async () => {
    const r = await withKey('Invalid client assertion', 120_000);
    expect(r.stderr).toBe(
      "svcadm: token request refused: Invalid client assertion — the refusal is about time: this machine's clock may be off (2 min behind the token service's); set it right (NTP) and try again\n",
    );
  });

  it('blames the key when the refusal is not about time and the clocks agree', async () => {
    const r = await withKey('Invalid client assertion', 3_000);
    expect(r).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'svcadm: token request refused: Invalid client assertion — check SVCADM_CLIENT_ID and SVCADM_CLIENT_ASSERTION_KEY\n',
    });
  });
});
