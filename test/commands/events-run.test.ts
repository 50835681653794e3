import { spawn } from 'node:child_process';
import { existsSync, linkSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/clock.js';
import { emulatorPerTest, type TestEmulator } from '../helpers/emulator.js';
import {
  answerJson,
  CLIENT_ID,
  CLIENT_SECRET,
  hostileServerPerTest,
  sse,
  sseMessage,
} from '../helpers/hostile-server.js';
import { loopbackPerTest } from '../helpers/loopback-server.js';
import { BIN, configWithProfiles, type ProfileSpec, runCli, tempConfigDir } from '../helpers/run-cli.js';

// One run for every source of the events pipeline (cli.md "Round 5 additions", "Events, one run"): where each
// tenant resumes, the cursor file's forms, --fail-fast across tenants, and what a replay must never do.

const emulator = emulatorPerTest();
const hostile = hostileServerPerTest();
const loopback = loopbackPerTest();

const START = Date.parse('2026-03-01T12:00:00Z');
/** A stream that reached no cursor resumes from the run's start taken 60 s early. */
const SLACK_BEFORE_START = '2026-03-01T11:59:00Z';
const quiet = { eventRate: 0, heartbeatMs: 0 };

const admin = (emu: TestEmulator): ProfileSpec => ({ domain: emu.url, ...emu.admin });
const hostileProfile = (url: string): ProfileSpec => ({
  domain: url,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
});
const offsets = (stdout: string, profile: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { profile: string; event?: { offset: string } })
    .filter((line) => line.profile === profile && line.event)
    .map((line) => line.event?.offset);

describe('where a tail resumes: every tenant, from its last position or from its start', () => {
  it('a tenant that never connected is resumed from the start, in the resume line and the cursor file', async () => {
    const ok = await emulator({ events: 25, ...quiet });
    const down = await hostile({ api: answerJson(503, { message: 'Service unavailable' }) });
    const dir = configWithProfiles({ ok: admin(ok), down: hostileProfile(down.url) });
    const file = join(dir, 'cursors.json');
    const words = ['--profiles', '*', 'events', 'tail', '--cursor-file', file, '-o', 'ndjson', '-q'];
    const r = await runCli([...words, '--duration', '5s'], {
      env: { SVCADM_CONFIG_DIR: dir },
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(9);
    const resume = `svcadm --profiles down,ok -o ndjson events tail --since ${SLACK_BEFORE_START} --cursor-file ${file}`;
    expect(JSON.parse(r.stderr.trimEnd().split('\n').at(-1) ?? '').error.hint).toBe(`resume with: ${resume}`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      cursors: {},
      since: { down: SLACK_BEFORE_START, ok: SLACK_BEFORE_START },
    });
    // Resumed from the file: each tenant asks for the events since then, none at "the newest".
    await ok.clearRequests();
    await runCli([...words, '--duration', '1s'], { env: { SVCADM_CONFIG_DIR: dir }, clock: new VirtualClock(START) });
    const asked = (await ok.requests()).requests.find((q) => q.path === '/api/v2/events');
    expect(new URLSearchParams(asked?.query).get('from_timestamp')).toBe(SLACK_BEFORE_START);
    expect(down.apiRequests().at(-1)?.query.get('from_timestamp')).toBe(SLACK_BEFORE_START);
  });

  it('a tail against one tenant that never connected keeps its start in its cursor file: {"since":…}', async () => {
    const down = await hostile({ api: answerJson(503, { message: 'Service unavailable' }) });
    const env = down.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const r = await runCli(['events', 'tail', '--cursor-file', file, '--duration', '5s', '-q'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(7);
    expect(readFileSync(file, 'utf8')).toBe(`{"since":"${SLACK_BEFORE_START}"}\n`);
    expect(r.stderr).toMatch(
      new RegExp(
        `— resume with: svcadm --domain \\S+ events tail --since ${SLACK_BEFORE_START} --cursor-file \\S+\\n$`,
      ),
    );
    // The file in its new form is read back.
    await runCli(['events', 'tail', '--cursor-file', file, '--duration', '1s', '-q'], { env });
    expect(down.apiRequests().at(-1)?.query.get('from_timestamp')).toBe(SLACK_BEFORE_START);
  });

  it('--from names some tenants and --since the rest; the resume line pastes back', async () => {
    const [a, b] = [await emulator({ events: 30, ...quiet }), await emulator({ events: 30, ...quiet })];
    const env = { SVCADM_CONFIG_DIR: configWithProfiles({ a: admin(a!), b: admin(b!) }) };
    const first = await runCli(['-p', 'a', 'events', 'tail', '--since', '7d', '--max-events', '3', '-o', 'ndjson'], {
      env,
    });
    const third = (JSON.parse(first.stdout.trim().split('\n')[2] ?? '') as { offset: string }).offset;
    const r = await runCli(
      ['--profiles', '*', 'events', 'tail', '--from', `a=${third}`, '--since', '7d', '--max-events', '2'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = (await a!.requests()).requests.filter((q) => q.path === '/api/v2/events').at(-1);
    expect(new URLSearchParams(sent?.query).get('from')).toBe(third);
    const other = (await b!.requests()).requests.filter((q) => q.path === '/api/v2/events').at(-1);
    expect(new URLSearchParams(other?.query).get('from_timestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('a tail across tenants rewrites its own tenants in a shared cursor file and keeps the others', async () => {
    const dev = await emulator({ events: 25, ...quiet });
    const dir = configWithProfiles({ dev: admin(dev) });
    const file = join(dir, 'cursors.json');
    writeFileSync(file, '{"cursors":{"staging":"c-staging","dev":"c-old"},"since":{"qa":"2026-01-01T00:00:00Z"}}\n', {
      mode: 0o600,
    });
    const r = await runCli(
      ['--profiles', 'dev', 'events', 'tail', '--since', '7d', '--max-events', '2', '--cursor-file', file],
      { env: { SVCADM_CONFIG_DIR: dir } },
    );
    expect(r.code, r.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.cursors.staging).toBe('c-staging');
    expect(saved.since).toEqual({ qa: '2026-01-01T00:00:00Z' });
    expect(saved.cursors.dev).not.toBe('c-old');
    expect(Object.keys(saved.cursors).sort()).toEqual(['dev', 'staging']);
  });

  it("profile names that are an object's own words (toString, constructor) are tenants like any other", async () => {
    const [a, b] = [await emulator({ events: 25, ...quiet }), await emulator({ events: 25, ...quiet })];
    const dir = configWithProfiles({ toString: admin(a!), constructor: admin(b!) });
    const file = join(dir, 'cursors.json');
    const r = await runCli(
      [
        '--profiles',
        '*',
        'events',
        'tail',
        '--since',
        '7d',
        '--max-events',
        '1',
        '--cursor-file',
        file,
        '-o',
        'ndjson',
      ],
      { env: { SVCADM_CONFIG_DIR: dir } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(offsets(r.stdout, 'toString')).toHaveLength(1);
    expect(offsets(r.stdout, 'constructor')).toHaveLength(1);
    for (const emu of [a!, b!]) {
      const sent = (await emu.requests()).requests.find((q) => q.path === '/api/v2/events');
      expect(new URLSearchParams(sent?.query).has('from')).toBe(false);
    }
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { cursors: Record<string, string> };
    expect(Object.keys(saved.cursors).sort()).toEqual(['constructor', 'toString']);
  });
});

describe('--fail-fast across tenants', () => {
  it('the first tenant whose subscription fails stops the others, each reported as cancelled; its code is the exit', async () => {
    const [a, b] = [await emulator({ events: 25, ...quiet }), await emulator({ events: 25, ...quiet })];
    const refused = await hostile({ api: answerJson(403, { message: 'Insufficient scope', errorCode: 'forbidden' }) });
    const env = {
      SVCADM_CONFIG_DIR: configWithProfiles({ a: admin(a!), b: admin(b!), bad: hostileProfile(refused.url) }),
    };
    const r = await runCli(['--profiles', '*', '--fail-fast', 'events', 'tail', '--duration', '30s', '-o', 'ndjson'], {
      env,
      clock: new VirtualClock(START),
    });
    expect(r.code).toBe(4);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((line) => line.includes('"cancelled"')).sort()).toEqual([
      '{"profile":"a","error":{"status":null,"code":"cancelled","message":"stopped by --fail-fast: bad failed","exit_code":null}}',
      '{"profile":"b","error":{"status":null,"code":"cancelled","message":"stopped by --fail-fast: bad failed","exit_code":null}}',
    ]);
    expect(JSON.parse(lines.find((line) => line.startsWith('{"profile":"bad"')) ?? '').error.exit_code).toBe(4);
    const last = JSON.parse(r.stderr.trimEnd().split('\n').at(-1) ?? '').error;
    expect(last.message).toBe('1 of 3 tenants failed: bad (exit 4); stopped by --fail-fast: a, b');
    expect(last.hint).toBe(
      `resume with: svcadm --profiles a,b,bad -o ndjson events tail --since ${SLACK_BEFORE_START}`,
    );
  });
});

describe('a replay never reads its own output', () => {
  /** A dead-letter file of two events, and an app that still rejects them. */
  async function deadLetters() {
    const app = await loopback([(_req, res: ServerResponse) => res.writeHead(422).end()]);
    const file = join(tempConfigDir(), 'dead.ndjson');
    const event = (n: number) =>
      `{"event":{"type":"user.created","offset":"o${n}","event":{"id":"evt_${n}"}},"offset":"o${n}","status":422,"attempts":1,"error":"rejected: 422","at":"2026-03-01T12:00:00.000Z"}`;
    writeFileSync(file, `${event(1)}\n${event(2)}\n`, { mode: 0o600 });
    return { app, file, hook: `${app.url}/hook`, env: { SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' } };
  }

  it('refuses --dead-letter that is the file replayed, or a hard link to it: exit 2, nothing sent', async () => {
    const { app, file, hook, env } = await deadLetters();
    const link = `${file}.link`;
    linkSync(file, link);
    for (const dead of [file, link]) {
      const r = await runCli(['events', 'replay', file, '--forward-to', hook, '--dead-letter', dead], { env });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: --dead-letter ${dead} is the file being replayed: the replay would read its own dead letters again without end — give the dead letters another file (replay that one once this replay is done)\n`,
      });
    }
    expect(app.requests).toEqual([]);
  });

  it('refuses a stdout appended to the file replayed (-o ndjson >> file): exit 2, nothing sent', async () => {
    const { app, file, hook, env } = await deadLetters();
    const before = readFileSync(file, 'utf8');
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        'sh',
        [
          '-c',
          `exec "${process.execPath}" "${BIN}" events replay "$1" --forward-to "$2" -o ndjson >> "$1"`,
          'sh',
          file,
          hook,
        ],
        { env: { PATH: process.env.PATH, ...env } },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
      });
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        status: null,
        code: 'usage',
        message: `stdout is the file being replayed (${file}): the replay would read what it prints without end`,
        hint: 'redirect stdout to another file',
        exit_code: 2,
      },
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(app.requests).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});

describe('a replay stopped by its dead-letter file', () => {
  it('a dead letter that cannot be written (a full disk) ends with the summary and the line to resume with: exit 74', async () => {
    const app = await loopback([(_req, res: ServerResponse) => res.writeHead(422).end()]);
    const dir = tempConfigDir();
    const file = join(dir, 'events.ndjson');
    const dead = join(dir, 'dead.ndjson');
    const line = (n: number) =>
      `{"type":"user.created","offset":"o${n}","event":{"id":"evt_${n}","pad":"${'x'.repeat(200)}"}}`;
    writeFileSync(file, `${[1, 2, 3, 4, 5, 6].map(line).join('\n')}\n`);
    // `ulimit -f 1`: the dead-letter file may hold 512 bytes (dash's blocks): one dead letter, not the second.
    const words = ['events', 'replay', file, '--forward-to', `${app.url}/hook`, '--dead-letter', dead];
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', `ulimit -f 1; exec "${process.execPath}" "${BIN}" "$@"`, 'sh', ...words], {
        env: { PATH: process.env.PATH, SVCADM_FORWARD_SECRET: 'a-secret-of-16-chars' },
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
      });
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(74);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.slice(1, -1)).toEqual([
      `svcadm: stopped after 1 event: 0 forwarded, 1 dead-lettered to ${dead} (1 rejected)`,
      '  user.created  0 forwarded, 1 dead-lettered',
      `resume with: svcadm events replay ${file} --from-line 2 --forward-to ${app.url}/hook --dead-letter ${dead}`,
    ]);
    expect(lines.at(-1)).toMatch(
      /^svcadm: cannot write to the dead-letter file .*EFBIG.*free space or fix the dead-letter file, then resume with the line above$/,
    );
  });
});

describe('one filter stage for every source', () => {
  /** A server that ignores `event_type`: it sends every type. */
  const everyType = [
    sseMessage('o1', 'user.created', '{"offset":"o1","event":{"id":"e1"}}'),
    sseMessage('o2', 'user.deleted', '{"offset":"o2","event":{"id":"e2"}}'),
    sseMessage('o3', 'user.created', '{"offset":"o3","event":{"id":"e3"}}'),
    sseMessage('o4', 'user.deleted', '{"offset":"o4","event":{"id":"e4"}}'),
  ];

  it('--type shows only its types from one tenant and across tenants, though the service sends every type', async () => {
    const server = await hostile({ api: sse(everyType, { keepOpen: true }) });
    const env = server.env();
    const file = join(env.SVCADM_CONFIG_DIR ?? '', 'cursor');
    const lone = await runCli(
      ['events', 'tail', '--type', 'user.created', '--cursor-file', file, '--max-events', '2'],
      {
        env,
      },
    );
    expect(lone.code, lone.stderr).toBe(0);
    expect(
      lone.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).offset),
    ).toEqual(['o1', 'o3']);

    const dir = configWithProfiles({ one: hostileProfile(server.url), two: hostileProfile(server.url) });
    const merged = await runCli(
      ['--profiles', '*', 'events', 'tail', '--type', 'user.deleted', '--max-events', '2', '-o', 'ndjson'],
      { env: { SVCADM_CONFIG_DIR: dir } },
    );
    expect(merged.code, merged.stderr).toBe(0);
    expect(offsets(merged.stdout, 'one')).toEqual(['o2', 'o4']);
    expect(offsets(merged.stdout, 'two')).toEqual(['o2', 'o4']);
  });
});
