import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { endlessSseLine, hostileServerPerTest, hugeSseEvent, sse, sseMessage } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

/** The virtual clock's start in tests that print a time: 2026-03-01T12:00:00Z. */
const START = Date.UTC(2026, 2, 1, 12);

const hostile = hostileServerPerTest();

const event = (offset: string, id = 'evt_1') => `{"offset":${JSON.stringify(offset)},"event":{"id":"${id}"}}`;

describe('cursors', () => {
  it.each([
    ['an emoji', 'abc🙂'],
    ['a space', 'abc def'],
    ['an escape', 'abc\u001b[2J'],
    ['1,025 characters', 'x'.repeat(1025)],
  ])('--from with %s is exit 2, nothing sent', async (_what, from) => {
    const server = await hostile();
    const r = await runCli(['events', 'tail', '--from', from], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: --from must be a cursor: 1 to 1024 visible ASCII characters\n',
    });
    expect(server.requests).toEqual([]);
  });

  it('a cursor file with a control byte is exit 2, nothing sent', async () => {
    const server = await hostile();
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    writeFileSync(file, 'abc\u0007def\n');
    const r = await runCli(['events', 'tail', '--cursor-file', file], { env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: the cursor file ${file} does not hold a cursor (1 to 1024 visible ASCII characters) — delete it, or start with --from or --since\n`,
    });
    expect(server.requests).toEqual([]);
  });

  it('a cursor file that never ends (/dev/zero) is not read: it is no regular file; exit 2, nothing sent', async () => {
    const server = await hostile();
    const r = await runCli(['events', 'tail', '--cursor-file', '/dev/zero'], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: refusing to read the cursor file /dev/zero: it is a character device, not a regular file\n',
    });
    expect(server.requests).toEqual([]);
  });

  it('adopts only offsets that are 1 to 1024 visible ASCII characters: never saved, resumed from or printed', async () => {
    const long = 'L'.repeat(1025);
    const server = await hostile({
      api: [
        sse([
          sseMessage('good-1', 'user.created', event('good-1', 'e1')),
          sseMessage('bad\u001b]0;x\u0007', 'user.created', event('bad', 'e2')),
          sseMessage(long, 'user.created', event(long, 'e3')),
          sseMessage('good\u00e9', 'user.created', event('x', 'e4')),
        ]),
        sse([sseMessage('good-2', 'user.created', event('good-2', 'e5'))], { keepOpen: true }),
      ],
    });
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const interrupt = new AbortController();
    let lines = 0;
    const r = await runCli(['events', 'tail', '--cursor-file', file, '-o', 'ndjson'], {
      env,
      interrupt: interrupt.signal,
      onStdout: (chunk) => {
        lines += chunk.split('\n').length - 1;
        if (lines >= 5) interrupt.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).event.id),
    ).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    // The second connection resumed from the last good offset, not from any of the bad ones.
    expect(server.apiRequests()[1]?.query.get('from')).toBe('good-1');
    expect(server.apiRequests()[1]?.headers['last-event-id']).toBe('good-1');
    expect(readFileSync(file, 'utf8')).toBe('good-2\n');
    expect(r.stderr).toBe(
      [
        'svcadm: warning: ignored an event offset that is not 1 to 1024 visible ASCII characters',
        'svcadm: the service closed the event stream; reconnecting in 1.1s (attempt 1)',
        'svcadm: interrupted after 5 events',
        `resume with: svcadm --domain ${env.SVCADM_DOMAIN} -o ndjson events tail --from good-2 --cursor-file ${file}`,
        '',
      ].join('\n'),
    );
  });
});

const MB = 1024 * 1024;

describe('the size of what the stream sends', () => {
  it('drops a connection whose line never ends, with one line on stderr, and resumes from the last cursor', async () => {
    const server = await hostile({
      api: [
        endlessSseLine(sseMessage('c1', 'user.created', event('c1', 'e1')), 64 * MB),
        sse([sseMessage('c2', 'user.created', event('c2', 'e2'))], { keepOpen: true }),
      ],
    });
    const r = await runCli(['events', 'tail', '--max-events', '2'], { env: server.env() });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).event.id),
    ).toEqual(['e1', 'e2']);
    expect(r.stderr).toBe(
      'svcadm: dropped the event stream: it sent a line longer than 4 MB; reconnecting in 1.1s (attempt 1)\n',
    );
    expect(server.apiRequests()[1]?.query.get('from')).toBe('c1');
  });

  it.each([
    ['a line that never ends', endlessSseLine('', 64 * MB), 'a line longer than 4 MB'],
    ['one event of 64 MB', hugeSseEvent(64 * MB), 'an event larger than 4 MB'],
  ])('%s with --max-reconnects 0: exit 7', async (_what, behaviour, detail) => {
    const server = await hostile({ api: behaviour });
    const env = server.env();
    const r = await runCli(['events', 'tail', '--max-reconnects', '0'], { env, clock: new VirtualClock(START) });
    // The stream had opened: the give-up says where to resume (no cursor yet: the time the run started).
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: dropped the event stream: it sent ${detail} — resume with: svcadm --domain ${env.SVCADM_DOMAIN} events tail --since 2026-03-01T11:59:00Z\n`,
    });
  });
});

describe('NDJSON lines from the stream', () => {
  it('are each one valid JSON value with nothing raw a terminal could act on; bad events are skipped with a warning', async () => {
    const server = await hostile({
      api: sse([
        sseMessage('o1', 'user.created', '{"offset":"o1","name":"\u001b]0;pwned\u0007"}'),
        sseMessage(
          'o2',
          'user.created',
          '{"offset":"o2","name":"a\\u001b[31m b\u007f c\u009b d\u202e e\u061c f\u00ad"}',
        ),
        'id: o3\nevent: user.updated\ndata: {"offset":"o3",\ndata:  "name":"two lines"}\n\n',
        sseMessage('o4', 'user.deleted', '{"offset":"o4",}'),
        sseMessage('o5', 'user.deleted', '{"type":"bogus","offset":"o5"}'),
        sseMessage('o6', 'user.deleted', '["o6"]'),
        sseMessage('o7', 'user.deleted', `{"offset":"o7","deep":${'['.repeat(65)}${']'.repeat(65)}}`),
        sseMessage('o8', 'user.created', '{"offset":"o8"}'),
      ]),
    });
    const r = await runCli(['events', 'tail', '--max-events', '4'], { env: server.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '{"type":"user.created","offset":"o2","name":"a\\u001b[31m b\\u007f c\\u009b d\\u202e e\\u061c f\\u00ad"}',
        '{"type":"user.updated","offset":"o3","name":"two lines"}',
        '{"type":"user.deleted","offset":"o5"}',
        '{"type":"user.created","offset":"o8"}',
        '',
      ].join('\n'),
    );
    for (const line of r.stdout.trim().split('\n')) {
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e]/);
      JSON.parse(line);
    }
    const skipped = (type: string) => `svcadm: warning: skipped a ${type} message whose data is not a JSON object`;
    expect(r.stderr).toBe(
      [skipped('user.created'), skipped('user.deleted'), skipped('user.deleted'), skipped('user.deleted'), ''].join(
        '\n',
      ),
    );
  });
});
