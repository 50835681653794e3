import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import {
  answerJson,
  type Behaviour,
  eventData,
  hostileServerPerTest,
  sse,
  sseMessage,
} from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

// Issue 37, C13: a tail whose stream is down ends with exit 7, and its error says which answer kept it down.

const START = Date.UTC(2026, 2, 1, 12);
const AT_START = '2026-03-01T12:00:00Z';
/** A stream that reached no cursor resumes from its start taken 60 s early (docs/decisions/2026-11-28-resume-from-the-start.md). */
const SLACK_BEFORE_START = '2026-03-01T11:59:00Z';
const hostile = hostileServerPerTest();

/** The answers that keep the stream down, and what the envelope says of each. */
const ANSWERS: Array<[string, Behaviour, { status: number; code: string; text: string }]> = [
  [
    '503 with the service code',
    answerJson(503, { message: 'Down for maintenance', errorCode: 'maintenance_window' }),
    { status: 503, code: 'maintenance_window', text: 'the service failed: Down for maintenance' },
  ],
  [
    '503 without a body',
    answerJson(503, ''),
    { status: 503, code: 'server_error', text: 'the service failed: 503 Service Unavailable' },
  ],
  [
    '429 with the service code',
    answerJson(429, { message: 'Global limit has been reached', errorCode: 'too_many_requests' }),
    { status: 429, code: 'too_many_requests', text: 'rate limited: Global limit has been reached' },
  ],
  [
    '429 without a body',
    answerJson(429, ''),
    { status: 429, code: 'rate_limited', text: 'rate limited: 429 Too Many Requests' },
  ],
];

/** The JSON error envelope of a run, from its last stderr line. */
function envelope(stderr: string): unknown {
  return JSON.parse(stderr.trim().split('\n').pop() ?? '');
}

describe('events tail whose stream is down: exit 7 with the last answer status and code', () => {
  it.each(ANSWERS)('%s, then --duration ends while it is down', async (_what, answer, expected) => {
    const server = await hostile({ api: [sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]), answer] });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--duration', '10s', '--quiet', '-o', 'json'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    expect(envelope(r.stderr)).toEqual({
      error: {
        status: expected.status,
        code: expected.code,
        message: `the event stream has been down since ${AT_START}: ${expected.text}`,
        hint: `resume with: svcadm --domain ${env.SVCADM_DOMAIN} -o json events tail --from c1`,
        exit_code: 7,
      },
    });
  });

  it.each(ANSWERS)('%s, until --max-reconnects gives up', async (_what, answer, expected) => {
    const server = await hostile({ api: [sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]), answer] });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--max-reconnects', '1', '--quiet', '-o', 'json'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    expect(envelope(r.stderr)).toEqual({
      error: {
        status: expected.status,
        code: expected.code,
        message: expected.text,
        hint: `resume with: svcadm --domain ${env.SVCADM_DOMAIN} -o json events tail --from c1`,
        exit_code: 7,
      },
    });
  });

  it('a stream that never connected says so, with the status of its last answer', async () => {
    const server = await hostile({ api: answerJson(429, { message: 'slow down' }) });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--duration', '10s', '-o', 'json'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    expect(envelope(r.stderr)).toEqual({
      error: {
        status: 429,
        code: 'rate_limited',
        message: `the event stream has been down since ${AT_START}, never connected: rate limited: slow down`,
        hint: `resume with: svcadm --domain ${env.SVCADM_DOMAIN} -o json events tail --since ${SLACK_BEFORE_START}`,
        exit_code: 7,
      },
    });
  });

  it('a failure below HTTP after an answer carries no status: the code is network again', async () => {
    const server = await hostile({
      api: [
        sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]),
        answerJson(503, ''),
        (_req, res) => res.socket?.destroy(),
      ],
    });
    const env = server.env({ SVCADM_TOKEN: 'a-token' });
    const r = await runCli(['events', 'tail', '--duration', '10s', '--quiet', '-o', 'json'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    expect(envelope(r.stderr)).toMatchObject({ error: { status: null, code: 'network', exit_code: 7 } });
  });
});
