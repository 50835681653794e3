import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorEnv, emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import { loopbackPerTest, type Recorded } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Standard Webhooks on every forwarded POST, checked by the `standardwebhooks` library as an app would check them.
const startEmulator = emulatorPerTest();
// Registered after the emulator's: the receivers are closed first.
const loopback = loopbackPerTest();

const AT = Date.parse('2026-03-01T12:00:00Z');

function emulator(): Promise<TestEmulator> {
  return startEmulator({ events: 200, eventRate: 0, heartbeatMs: 0, streamRetryMs: 5 });
}

/** A loopback app answering each attempt with `reply(n)` (n counts every attempt, from 0). */
async function app(reply: (n: number) => number = () => 204) {
  let n = 0;
  // A 503 asks for the next attempt 2 s later: each attempt falls on a second of its own.
  const server = await loopback([
    (_req, res: ServerResponse) => {
      const status = reply(n++);
      res.writeHead(status, status === 503 ? { 'retry-after': '2' } : {}).end();
    },
  ]);
  return { ...server, hook: `${server.url}/hook` };
}

/**
 * What the library makes of one request: the payload it verified, or its error's message. Its check of the
 * timestamp against its own clock is given the second the attempt was signed at, plus `late` seconds.
 */
function verified(wh: Webhook, q: Recorded, late = 0): unknown {
  vi.setSystemTime((Number(q.headers['webhook-timestamp']) + late) * 1000);
  try {
    return wh.verify(q.body, q.headers as Record<string, string>);
  } catch (err) {
    return (err as Error).message;
  } finally {
    vi.useRealTimers();
  }
}

afterEach(() => vi.useRealTimers());

describe('Standard Webhooks on forwarded events', () => {
  it('a tail: a generated whsec_ secret verifies with the library; webhook-id is the Idempotency-Key, the timestamp the t of svcadm-signature', async () => {
    const e = await emulator();
    const receiver = await app();
    const clock = new VirtualClock(AT);
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '3', '--forward-to', receiver.hook], {
      env: emulatorEnv(e, { NO_COLOR: '1' }),
      clock,
    });
    expect(r.code, r.stderr).toBe(0);
    const secret = /signing secret (whsec_[A-Za-z0-9+/]{32}) /.exec(r.stderr)?.[1];
    expect(secret).toBeDefined();
    const wh = new Webhook(secret as string);
    const lines = r.stdout.trim().split('\n');
    expect(receiver.requests).toHaveLength(3);
    for (const [i, q] of receiver.requests.entries()) {
      expect(verified(wh, q)).toEqual(JSON.parse(lines[i] as string));
      expect(q.headers['webhook-id']).toBe(q.headers['idempotency-key']);
      expect(q.headers['webhook-id']).toBe((JSON.parse(q.body) as { event: { id: string } }).event.id);
      expect(q.headers['webhook-timestamp']).toBe(String(AT / 1000));
      expect(q.headers['svcadm-signature']).toMatch(new RegExp(`^t=${AT / 1000},v1=[0-9a-f]{64}$`));
      expect(q.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // A body changed, another secret, or a timestamp too old: refused.
      expect(verified(wh, { ...q, body: `${q.body} ` })).toBe('No matching signature found');
      expect(verified(new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`), q)).toBe(
        'No matching signature found',
      );
      expect(verified(wh, q, 600)).toBe('Message timestamp too old');
    }
  });

  it('a retry: each attempt is signed at its own second, and verifies; a secret without whsec_ verifies in the raw-key form', async () => {
    const e = await emulator();
    const receiver = await app((n) => (n < 2 ? 503 : 204));
    const clock = new VirtualClock(AT);
    const secret = 'a-plain-secret-of-24-chars';
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '1', '--forward-to', receiver.hook, '-q'],
      {
        env: emulatorEnv(e, { NO_COLOR: '1', SVCADM_FORWARD_SECRET: secret }),
        clock,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const payload = JSON.parse(r.stdout) as unknown;
    const raw = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    const rawForm = new Webhook(secret, { format: 'raw' });
    expect(receiver.requests.map((q) => q.headers['svcadm-attempt'])).toEqual(['1', '2', '3']);
    const seconds = receiver.requests.map((q) => Number(q.headers['webhook-timestamp']));
    expect(seconds).toEqual([AT / 1000, AT / 1000 + 2, AT / 1000 + 4]);
    for (const q of receiver.requests) {
      expect(verified(rawForm, q)).toEqual(payload);
      expect(verified(raw, q)).toEqual(payload);
      expect(q.headers['svcadm-signature']).toMatch(new RegExp(`^t=${q.headers['webhook-timestamp']},v1=`));
      expect(q.headers['webhook-id']).toBe(receiver.requests[0]?.headers['webhook-id']);
    }
  });

  it('a replay: the same webhook-id as the tail gave, signed again, verifies with a given whsec_ secret', async () => {
    const e = await emulator();
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = `whsec_${key.toString('base64')}`;
    const file = join(tempConfigDir(), 'events.ndjson');
    const env = emulatorEnv(e, { NO_COLOR: '1', SVCADM_FORWARD_SECRET: secret });
    const tail = await app();
    const first = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '2', '--output-file', file, '--forward-to', tail.hook, '-q'],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);
    const replayed = await app();
    const r = await runCli(['events', 'replay', file, '--forward-to', replayed.hook, '-q'], {
      env: { NO_COLOR: '1', SVCADM_FORWARD_SECRET: secret },
    });
    expect(r.code, r.stderr).toBe(0);
    const wh = new Webhook(secret);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(replayed.requests.map((q) => verified(wh, q))).toEqual(lines.map((l) => JSON.parse(l)));
    expect(replayed.requests.map((q) => q.headers['webhook-id'])).toEqual(
      tail.requests.map((q) => q.headers['webhook-id']),
    );
    // The key is the decoded bytes: the same library given those bytes raw agrees.
    expect(verified(new Webhook(key, { format: 'raw' }), replayed.requests[0] as Recorded)).toEqual(
      JSON.parse(lines[0] as string),
    );
  });

  it('refuses a whsec_ secret whose key is not base64, before anything is sent (exit 2)', async () => {
    const receiver = await app();
    const r = await runCli(['events', 'replay', join(tempConfigDir(), 'none.ndjson'), '--forward-to', receiver.hook], {
      env: { NO_COLOR: '1', SVCADM_FORWARD_SECRET: 'whsec_not*base64*at-all' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'svcadm: SVCADM_FORWARD_SECRET starts with whsec_ but the rest is not base64: a Standard Webhooks secret is whsec_<base64 of its key>\n',
    );
    expect(receiver.requests).toEqual([]);
  });
});
