import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { loopbackPerTest } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

/** What the terminal is told without its control sequences (the cursor's moves and visibility, erases, wrapping). */
const text = (stdout: string) => stdout.replace(/\x1b\[[?0-9;]*[A-Za-z]/g, '');

/** The events in one write: one network chunk, so the live view gets them as one batch whatever the timing. */
function sse(res: ServerResponse, events: Array<[id: string, type: string, time: string]>): void {
  let text = '';
  for (const [id, type, time] of events) {
    const event = { id: `evt_${id.padStart(16, '0')}`, type, time, data: { object: { user_id: `db|${id}` } } };
    text += `id: c${id}\nevent: ${type}\ndata: ${JSON.stringify({ offset: `c${id}`, event })}\n\n`;
  }
  res.write(text);
}

const loopback = loopbackPerTest();

/** A stream that the server closes after two events (asking `retry: 3000`), then serves two more and stays open. */
async function closingStream(): Promise<string> {
  const server = await loopback([
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 3000\n\n');
      sse(res, [
        ['1', 'user.created', '2025-06-05T11:00:00Z'],
        ['2', 'user.updated', '2025-06-05T11:00:01Z'],
      ]);
      res.end();
    },
    // Every later connection.
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, [
        ['3', 'user.deleted', '2025-06-05T11:00:02Z'],
        ['4', 'user.created', '2025-06-05T11:00:03Z'],
      ]);
    },
  ]);
  return server.url;
}

/** The status lines the live view drew, in order, each once: each ends a write, the cursor back at its start. */
function statuses(stdout: string): string[] {
  const drawn = text(stdout)
    .split('\r')
    .map((chunk) => chunk.replace(/\n$/, '')) // the last status line ends the output
    .map((chunk) => chunk.slice(chunk.lastIndexOf('\n') + 1));
  return drawn.filter((line, i) => line !== '' && line !== drawn[i - 1]);
}

describe('events tail: the live view status line', () => {
  it('says why it reconnects and counts down to the next attempt, then says it stopped and why', async () => {
    const url = await closingStream();
    const clock = new VirtualClock(Date.parse('2025-06-05T12:00:00Z'));
    const r = await runCli(['events', 'tail', '--max-events', '4'], {
      env: { SVCADM_DOMAIN: url, SVCADM_TOKEN: 't', NO_COLOR: '1' },
      tty: { stdout: true },
      columns: 100,
      clock,
    });
    expect(r.code).toBe(0);
    // The wait: the server's retry (3 s) plus 12.5% jitter (random 0.5).
    expect(clock.sleeps).toEqual([3375]);
    // Redraws every second (the clock's ticks), what fits of 100 columns; the last line replaces the live one.
    expect(statuses(r.stdout)).toEqual([
      '○ connecting · 0 events · 0.0/s · all types · cursor -',
      '● connected · 2 events · 0.0/s · all types · cursor c2',
      '○ reconnecting in 4s (attempt 1): the service closed the event stream · 2 events · 0.0/s',
      '○ reconnecting in 3s (attempt 1): the service closed the event stream · 2 events · 2.0/s',
      '○ reconnecting in 2s (attempt 1): the service closed the event stream · 2 events · 1.0/s',
      '○ reconnecting in 1s (attempt 1): the service closed the event stream · 2 events · 0.7/s',
      '● connected · 4 events · 0.6/s · all types · cursor c4',
      '■ stopped: reached --max-events · 4 events · all types · cursor c4',
    ]);
    expect(text(r.stdout).endsWith('■ stopped: reached --max-events · 4 events · all types · cursor c4\n')).toBe(true);
    expect(r.stderr).toBe('');
  });
});
