import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergedFormats } from '../../src/events/pipeline/event-formats.js';
import { StreamEvent } from '../../src/events/stream/subscription.js';
import { LiveModel } from '../../src/io/live/model.js';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import {
  answerJson,
  type Behaviour,
  CLIENT_ID,
  CLIENT_SECRET,
  eventData,
  hostileServerPerTest,
  sse,
  sseMessage,
} from '../helpers/hostile-server.js';
import { refusedPort } from '../helpers/loopback-server.js';
import { configWithProfiles, runCli } from '../helpers/run-cli.js';

/** `events tail --profiles …` (cli.md "Many tenants"): one emulator per tenant, each on its own port. */
const emulator = emulatorPerTest();
const hostile = hostileServerPerTest();

const admin = (emu: TestEmulator) => ({ domain: emu.url, ...emu.admin });
const quiet = { eventRate: 0, heartbeatMs: 0 };

/** The usual lines of `profile` inside the merged lines, as printed (never parsed and written again). */
function linesOf(stdout: string, profile: string): string[] {
  const head = `{"profile":${JSON.stringify(profile)},"event":`;
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(head))
    .map((line) => line.slice(head.length, -1));
}

function parsed(stdout: string): Array<{ profile: string; event: { offset: string; type: string } }> {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('events tail merged across tenants', () => {
  it('one {"profile","event"} line per event, each tenant its usual lines in its order', async () => {
    const [a, b] = [await emulator({ events: 30, ...quiet }), await emulator({ events: 30, ...quiet })];
    const env = { SVCADM_CONFIG_DIR: configWithProfiles({ dev: admin(a!), prod: admin(b!) }) };
    const r = await runCli(
      ['--profiles', '*', 'events', 'tail', '--since', '7d', '--max-events', '5', '-o', 'ndjson'],
      {
        env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = parsed(r.stdout);
    expect(lines).toHaveLength(10);
    expect(Object.keys(lines[0] ?? {})).toEqual(['profile', 'event']);
    const alone = await runCli(['-p', 'prod', 'events', 'tail', '--since', '7d', '--max-events', '5', '-o', 'ndjson'], {
      env,
    });
    expect(linesOf(r.stdout, 'prod')).toEqual(alone.stdout.trim().split('\n'));
  });

  it('thousands of events from each tenant: every line intact (lines are reused only once written)', async () => {
    const [a, b] = [await emulator({ events: 3000, ...quiet }), await emulator({ events: 3000, ...quiet })];
    const env = { SVCADM_CONFIG_DIR: configWithProfiles({ dev: admin(a!), prod: admin(b!) }) };
    const words = ['events', 'tail', '--since', '7d', '--max-events', '3000', '-o', 'ndjson'];
    const r = await runCli(['--profiles', '*', ...words], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(parsed(r.stdout)).toHaveLength(6000);
    for (const profile of ['dev', 'prod']) {
      const alone = await runCli(['-p', profile, ...words], { env });
      expect(linesOf(r.stdout, profile)).toEqual(alone.stdout.trim().split('\n'));
    }
  });

  it('a PROFILE column in the human view', async () => {
    const [a, b] = [await emulator({ events: 25, ...quiet }), await emulator({ events: 25, ...quiet })];
    const env = { SVCADM_CONFIG_DIR: configWithProfiles({ dev: admin(a!), 'prod-eu': admin(b!) }), NO_COLOR: '1' };
    const r = await runCli(['--profiles', '*', 'events', 'tail', '--since', '7d', '--max-events', '2', '-o', 'wide'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.split('\n').filter((line) => /^(dev|prod-eu)\s/.test(line));
    expect(events).toHaveLength(4);
    expect(events.filter((line) => line.startsWith('dev      '))).toHaveLength(2);
    expect(events.filter((line) => line.startsWith('prod-eu  '))).toHaveLength(2);
  });

  it('one tenant rotates its stream (followed silently) while another is down (reported for it alone): exit 9', async () => {
    const rot = await emulator({ events: 100, ...quiet });
    const down = await refusedPort();
    const env = {
      SVCADM_CONFIG_DIR: configWithProfiles({
        rot: admin(rot),
        gone: { domain: `http://127.0.0.1:${down}`, clientId: 'x', clientSecret: 'y' },
      }),
    };
    let fired = false;
    let seen = 0;
    const r = await runCli(
      [
        '--profiles',
        '*',
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '110',
        '--max-reconnects',
        '2',
        '-o',
        'ndjson',
      ],
      {
        env,
        onStdout: (chunk) => {
          seen += chunk.split('\n').length - 1;
          if (fired || seen < 100) return;
          fired = true;
          void rot.streamError('connection_timeout').then(() => rot.emit('user.updated', 10));
        },
      },
    );
    expect(r.code).toBe(9);
    const lines = parsed(r.stdout).filter((l) => 'event' in l);
    expect(lines.every((l) => l.profile === 'rot')).toBe(true);
    // The down tenant's failure is a line among the events, as every command across tenants reports one in NDJSON.
    const failed = r.stdout.split('\n').filter((line) => line.startsWith('{"profile":"gone","error":'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0] ?? '').error.exit_code).toBe(7);
    expect(new Set(lines.map((l) => l.event.offset)).size).toBe(110);
    const opens = (await rot.requests()).requests.filter((q) => q.path === '/api/v2/events');
    expect(opens).toHaveLength(2);
    const stderr = r.stderr.trimEnd().split('\n');
    // Nothing about the rotation; the down tenant's reconnects and its failure, named; the summary last.
    expect(stderr.filter((line) => /svcadm: rot: |"profile":"rot"/.test(line))).toEqual([]);
    expect(stderr.at(-1)).toMatch(
      /^\{"error":\{"status":null,"code":"tenants_failed","message":"1 of 2 tenants failed: gone \(exit 7\)","hint":"resume with: svcadm --profiles gone,rot -o ndjson events tail --from rot=[^"]+","exit_code":9\}\}$/,
    );
  });

  it('Ctrl-C: one resume line restarting every tenant where it stopped; --cursor-file holds a cursor per profile', async () => {
    const [a, b] = [await emulator({ events: 25, ...quiet }), await emulator({ events: 25, ...quiet })];
    const dir = configWithProfiles({ dev: admin(a!), prod: admin(b!) });
    const file = join(dir, 'cursors.json');
    const env = { SVCADM_CONFIG_DIR: dir };
    const stop = new AbortController();
    let seen = 0;
    const r = await runCli(
      ['--profiles', '*', 'events', 'tail', '--since', '7d', '--cursor-file', file, '-o', 'ndjson'],
      {
        env,
        interrupt: stop.signal,
        onStdout: (chunk) => {
          seen += chunk.split('\n').length - 1;
          if (seen >= 50) stop.abort();
        },
      },
    );
    expect(r.code).toBe(130);
    const lines = parsed(r.stdout);
    expect(lines).toHaveLength(50);
    const last = (profile: string) => lines.filter((l) => l.profile === profile).at(-1)?.event.offset;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ cursors: { dev: last('dev'), prod: last('prod') } });
    expect(r.stderr).toBe(
      'svcadm: interrupted after 50 events\n' +
        `resume with: svcadm --profiles dev,prod -o ndjson events tail --from dev=${last('dev')},prod=${last('prod')} --cursor-file ${file}\n`,
    );
    // The file restarts every tenant past what was printed.
    await a!.emit('user.created', 1);
    await b!.emit('user.deleted', 1);
    const again = await runCli(
      ['--profiles', '*', 'events', 'tail', '--cursor-file', file, '--max-events', '1', '-o', 'ndjson'],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(
      parsed(again.stdout)
        .map((l) => [l.profile, l.event.type])
        .sort(),
    ).toEqual([
      ['dev', 'user.created'],
      ['prod', 'user.deleted'],
    ]);
  });

  it('without a cursor file the resume line names a cursor per profile, and pastes back', async () => {
    const [a, b] = [await emulator({ events: 25, ...quiet }), await emulator({ events: 25, ...quiet })];
    const env = { SVCADM_CONFIG_DIR: configWithProfiles({ dev: admin(a!), prod: admin(b!) }) };
    const stop = new AbortController();
    let seen = 0;
    const r = await runCli(['--profiles', '*', 'events', 'tail', '--since', '7d', '-o', 'ndjson'], {
      env,
      interrupt: stop.signal,
      onStdout: (chunk) => {
        seen += chunk.split('\n').length - 1;
        if (seen >= 50) stop.abort();
      },
    });
    expect(r.code).toBe(130);
    const resume = /^resume with: svcadm (.*)$/m.exec(r.stderr)?.[1] ?? '';
    expect(resume).toMatch(/^--profiles dev,prod -o ndjson events tail --from dev=\S+,prod=\S+$/);
    await a!.emit('user.created', 1);
    await b!.emit('user.deleted', 1);
    const words = resume.split(' ').map((w) => w.replace(/^'|'$/g, ''));
    const again = await runCli([...words, '--max-events', '1'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(
      parsed(again.stdout)
        .map((l) => [l.profile, l.event.type])
        .sort(),
    ).toEqual([
      ['dev', 'user.created'],
      ['prod', 'user.deleted'],
    ]);
  });

  it('refuses what runs against one tenant, and a cursor file of the other kind: exit 2, nothing sent', async () => {
    const a = await emulator({ events: 25, ...quiet });
    const dir = configWithProfiles({ dev: admin(a) });
    const env = { SVCADM_CONFIG_DIR: dir };
    const single = join(dir, 'single.cursor');
    writeFileSync(single, 'ZXYxOjA6MzI6MTR5bGd6dg\n', { mode: 0o600 });
    const merged = join(dir, 'merged.json');
    writeFileSync(merged, '{"cursors":{"dev":"ZXYxOjA6MzI6MTR5bGd6dg"}}\n', { mode: 0o600 });
    const cases: Array<[string[], string]> = [
      [
        ['--profiles', '*', 'events', 'tail', '--forward-to', 'http://127.0.0.1:9/hook'],
        'svcadm: --forward-to runs against one tenant — forward each tenant with -p <profile>\n',
      ],
      [
        ['--profiles', '*', 'events', 'tail', '--cursor-file', single],
        `svcadm: the cursor file ${single} does not hold a cursor per profile (1 to 1024 visible ASCII characters each) — a tail across tenants keeps its own file: give another path, or start with --since\n`,
      ],
      [
        ['-p', 'dev', 'events', 'tail', '--cursor-file', merged],
        `svcadm: the cursor file ${merged} holds a cursor per profile, from a tail across tenants — run it with the same --profiles, or give another path\n`,
      ],
      [
        ['--profiles', '*', 'events', 'tail', '--from', 'staging=abc'],
        "svcadm: --from across tenants takes <profile>=<cursor>,… for the profiles of --profiles, got 'staging=abc' — paste the resume line a merged tail printed, or start with --since\n",
      ],
    ];
    for (const [words, stderr] of cases) {
      expect(await runCli([...words, '-o', 'wide'], { env }), words.join(' ')).toEqual({
        code: 2,
        stdout: '',
        stderr,
      });
    }
    expect((await a.requests()).requests.filter((q) => q.path === '/api/v2/events')).toEqual([]);
  });

  it("the live view: a PROFILE column, and the '/' filter picks a profile's events", async () => {
    const clock = new VirtualClock(Date.parse('2025-06-05T12:00:00Z'));
    const formats = mergedFormats(clock, [], ['dev', 'prod-eu']);
    const view = await formats.view();
    const event = (profile: string, id: string) => {
      const line = `{"type":"user.created","event":{"id":"${id}","time":"2025-06-05T11:59:00Z"}}\n`;
      const item = {
        event: {
          kind: 'event' as const,
          profile,
          event: new StreamEvent('user.created', `o-${id}`, [Buffer.from(line)]),
          position: [],
        },
      };
      const row = view.row(item);
      return { row, kind: view.kind(row), text: view.text(row), json: Buffer.from(line) };
    };
    const model = new LiveModel({
      lines: () => view.lines(false),
      initial: {},
      columns: 100,
      rows: 24,
      quit: () => {},
      interrupt: () => {},
    });
    const written: string[] = [];
    model.attach((text) => written.push(text));
    model.key('/', {});
    model.key('prod-eu', {});
    model.key('', { return: true });
    model.add([event('dev', 'evt_1'), event('prod-eu', 'evt_2'), event('dev', 'evt_3')]);
    const lines = written
      .join('')
      .split('\n')
      .filter((line) => line.includes('evt_'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^prod-eu {2}.*user\.created.*evt_2/);
    // The usual line inside {"profile","event"}, without a copy of it.
    const plain = new StreamEvent('user.created', 'o', [Buffer.from('{"type":"user.created"}\n')]);
    const pieces = formats.json({ event: { kind: 'event', profile: 'dev', event: plain, position: [] } });
    expect(Buffer.concat(pieces).toString()).toBe('{"profile":"dev","event":{"type":"user.created"}}\n');
  });

  it('--duration ends while one tenant is down: exit 7 for that tenant alone, named with since when; exit 9', async () => {
    const START = Date.parse('2026-03-01T12:00:00Z');
    const ok = await emulator({ events: 25, ...quiet });
    // The down tenant's 503s wait until the other tenant has printed: --duration then ends with one working, one down.
    let release: () => void = () => {};
    const okPrinted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const later: Behaviour = (req, res) => {
      void okPrinted.then(() => answerJson(503, { message: 'Service unavailable' })(req, res));
    };
    const gone = await hostile({ api: [sse([sseMessage('c1', 'user.created', eventData('c1', 'e1'))]), later] });
    const env = {
      SVCADM_CONFIG_DIR: configWithProfiles({
        ok: admin(ok),
        gone: { domain: gone.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      }),
    };
    const r = await runCli(
      ['--profiles', '*', 'events', 'tail', '--since', '7d', '--duration', '10s', '-o', 'ndjson', '-q'],
      {
        env,
        clock: new VirtualClock(START),
        onStdout: (chunk) => {
          if (chunk.includes('"profile":"ok"')) release();
        },
      },
    );
    expect(r.code).toBe(9);
    const lines = parsed(r.stdout);
    const events = lines.filter((l) => 'event' in l);
    expect(events.filter((l) => l.profile === 'gone').map((l) => l.event.offset)).toEqual(['c1']);
    expect(events.filter((l) => l.profile === 'ok').length).toBeGreaterThan(0);
    // The last line on stdout: the down tenant's failure, after every event, with the answer that kept it down.
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      '{"profile":"gone","error":{"status":503,"code":"server_error","message":"the event stream has been down since 2026-03-01T12:00:00Z: the service failed: Service unavailable","exit_code":7}}',
    );
    const stderr = r.stderr.trimEnd().split('\n');
    expect(stderr).toHaveLength(1);
    expect(JSON.parse(stderr.at(-1) ?? '').error.message).toBe('1 of 2 tenants failed: gone (exit 7)');
  });
});
