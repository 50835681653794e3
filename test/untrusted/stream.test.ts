import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostileServer, sse, sseMessage, startHostileServer } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const event = (offset: string, id = 'evt_1') => `{"offset":${JSON.stringify(offset)},"event":{"id":"${id}"}}`;

describe('cursors', () => {
  it.each([
    ['an emoji', 'abc🙂'],
    ['a space', 'abc def'],
    ['an escape', 'abc\u001b[2J'],
    ['1,025 characters', 'x'.repeat(1025)],
  ])('--from with %s is exit 2, nothing sent', async (_what, from) => {
    server = await startHostileServer();
    const r = await runCli(['events', 'tail', '--from', from], { env: server.env() });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: --from must be a cursor: 1 to 1024 visible ASCII characters\n',
    });
    expect(server.requests).toEqual([]);
  });

  it('a cursor file with a control byte is exit 2, nothing sent', async () => {
    server = await startHostileServer();
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

  it('adopts only offsets that are 1 to 1024 visible ASCII characters: never saved, resumed from or printed', async () => {
    const long = 'L'.repeat(1025);
    server = await startHostileServer({
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
        'resume with: svcadm events tail --from good-2',
        '',
      ].join('\n'),
    );
  });
});
