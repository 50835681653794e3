import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopbackPerTest } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 37, C12: `--from-line` too large for a number, or past the end of the file, is said so (exit 2).

const loopback = loopbackPerTest();
const ENV = { NO_COLOR: '1', SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' };

const line = (n: number) => `{"type":"user.created","offset":"o${n}","event":{"id":"evt_${n}"}}`;

function recorded(count: number, end = '\n'): string {
  const file = join(tempConfigDir(), 'events.ndjson');
  writeFileSync(file, Array.from({ length: count }, (_, k) => line(k + 1)).join('\n') + (count > 0 ? end : ''));
  return file;
}

async function app() {
  const server = await loopback([(_req, res: ServerResponse) => res.writeHead(204).end()]);
  return { ...server, hook: `${server.url}/hook` };
}

describe('a whole-number option too large for a number', () => {
  it.each([
    ['--from-line', ['events', 'replay', '/tmp/x.ndjson', '--from-line', '99999999999999999999']],
    ['--max-events', ['events', 'tail', '--max-events', '99999999999999999999']],
    ['--max-reconnects', ['events', 'tail', '--max-reconnects', '9007199254740992']],
    // Past what a double holds at all (Infinity).
    ['--page', ['users', 'permissions', 'u1', '--page', `1${'0'.repeat(400)}`]],
  ])('%s says the number is too large: exit 2, nothing sent', async (option, argv) => {
    const r = await runCli(argv, { env: { ...ENV, SVCADM_DOMAIN: 'http://127.0.0.1:9', SVCADM_TOKEN: 't' } });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: ${option} must be at most 9007199254740991, got ${argv.at(-1)}\n`,
    });
  });

  it('the largest whole number is taken', async () => {
    const file = recorded(3);
    const r = await runCli(['events', 'replay', file, '--from-line', '9007199254740991'], { env: ENV });
    expect(r.stderr).toBe(`svcadm: --from-line 9007199254740991 is past the end of ${file}: it has 3 lines\n`);
  });
});

describe('events replay --from-line past the end of the file', () => {
  it('is exit 2 naming the lines the file has, before anything is sent or announced', async () => {
    const file = recorded(12);
    const receiver = await app();
    const r = await runCli(['events', 'replay', file, '--from-line', '50', '--forward-to', receiver.hook], {
      env: ENV,
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: --from-line 50 is past the end of ${file}: it has 12 lines\n`,
    });
    expect(receiver.requests).toEqual([]);
  });

  it('counts a last line without its line break, and says "1 line" and "0 lines"', async () => {
    const unended = recorded(2, '');
    const r = await runCli(['events', 'replay', unended, '--from-line', '4'], { env: ENV });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: --from-line 4 is past the end of ${unended}: it has 2 lines\n`,
    });
    const one = recorded(1);
    expect((await runCli(['events', 'replay', one, '--from-line', '3'], { env: ENV })).stderr).toBe(
      `svcadm: --from-line 3 is past the end of ${one}: it has 1 line\n`,
    );
    const empty = recorded(0);
    expect((await runCli(['events', 'replay', empty, '--from-line', '2'], { env: ENV })).stderr).toBe(
      `svcadm: --from-line 2 is past the end of ${empty}: it has 0 lines\n`,
    );
  });

  it('the line after the last one (where a resume line points once the last line was settled) is no error', async () => {
    for (const [file, from] of [
      [recorded(12), '13'],
      [recorded(2, ''), '3'],
      [recorded(0), '1'],
    ] as const) {
      const receiver = await app();
      const r = await runCli(['events', 'replay', file, '--from-line', from, '--forward-to', receiver.hook, '-q'], {
        env: ENV,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(receiver.requests).toEqual([]);
    }
  });

  it('a stop while the file is read up to --from-line ends the replay there: exit 130, nothing sent', async () => {
    const file = recorded(20_000);
    const receiver = await app();
    const stop = new AbortController();
    stop.abort();
    const r = await runCli(['events', 'replay', file, '--from-line', '20005', '--forward-to', receiver.hook], {
      env: ENV,
      interrupt: stop.signal,
    });
    expect(r).toEqual({ code: 130, stdout: '', stderr: 'svcadm: interrupted\n' });
    expect(receiver.requests).toEqual([]);
  });

  it('says so when there is nothing to replay: every line is before --from-line, or the file is empty', async () => {
    const twelve = recorded(12);
    const empty = recorded(0);
    expect(await runCli(['events', 'replay', twelve, '--from-line', '13', '-o', 'ndjson'], { env: ENV })).toEqual({
      code: 0,
      stdout: '',
      stderr: `svcadm: nothing to replay: ${twelve} has 12 lines, all before --from-line 13\n`,
    });
    expect(await runCli(['events', 'replay', empty, '-o', 'ndjson'], { env: ENV })).toEqual({
      code: 0,
      stdout: '',
      stderr: `svcadm: nothing to replay: ${empty} is empty\n`,
    });
    expect((await runCli(['events', 'replay', twelve, '--from-line', '13', '-q'], { env: ENV })).stderr).toBe('');
  });

  it('the last line itself is replayed, with or without its line break', async () => {
    for (const file of [recorded(12), recorded(12, '')]) {
      const r = await runCli(['events', 'replay', file, '--from-line', '12', '-o', 'ndjson'], { env: ENV });
      expect(r).toEqual({ code: 0, stdout: `${line(12)}\n`, stderr: '' });
    }
  });
});
