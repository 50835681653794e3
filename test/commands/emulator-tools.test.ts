import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFaultOptions, parseTriggerOptions } from '../../src/commands/emulator/options.js';
import { CONTROL_PREFIX, CONTROL_ROUTES, controlApiText } from '../../src/emulator/control-routes.js';
import { startEmulator } from '../../src/emulator/server.js';
import { UsageError } from '../../src/errors.js';
import { VirtualClock } from '../helpers/clock.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { emulatorEnv, type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { json, loopbackPerTest, refusedPort } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 29 point 14: `svcadm emulator trigger|fault|reset`, thin clients of the control API, as `stripe trigger`.

let emu: TestEmulator;
let env: Record<string, string>;

async function described(): Promise<{ eventHead: string }> {
  return (await (await fetch(`${emu.url}${CONTROL_PREFIX}`)).json()) as { eventHead: string };
}

async function faults(): Promise<unknown[]> {
  return ((await (await fetch(`${emu.url}${CONTROL_PREFIX}/faults`)).json()) as { faults: unknown[] }).faults;
}

describe('emulator trigger|fault|reset against a running emulator', () => {
  withFileEmulator((each) => ({ emu, env } = each), { emulator: { eventRate: 0 }, env: { NO_COLOR: '1' } });

  it('trigger emits the events now, says so, and how to see them', async () => {
    const r = await runCli(['emulator', 'trigger', 'user.created', '--count', '3'], { env, tty: { stdout: true } });
    const head = (await described()).eventHead;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Emitted 3 user.created events at the emulator ${emu.url}.\n`);
    const see = /^See them: svcadm --domain (\S+) events tail --from (\S+) --max-events 3\n$/.exec(r.stderr);
    expect(see?.[1]).toBe(emu.url);
    const tail = await runCli(['events', 'tail', '--from', see?.[2] ?? '', '--max-events', '3', '-o', 'ndjson'], {
      env,
    });
    const events = tail.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(['user.created', 'user.created', 'user.created']);
    const j = await runCli(['emulator', 'trigger', 'group.created', '-o', 'json'], { env });
    const body = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(body).toEqual({
      emulator: emu.url,
      type: 'group.created',
      count: 1,
      before: head,
      offsets: [(await described()).eventHead],
    });
  });

  it('trigger refuses what is not an event type or a count, with exit 2 and nothing sent', async () => {
    const before = (await described()).eventHead;
    for (const [args, line] of [
      [
        ['user.create'],
        "svcadm: unknown event type 'user.create' (did you mean user.created?) — run 'svcadm emulator trigger --help' for the 25 event types",
      ],
      [['user'], "svcadm: unknown event type 'user' — run 'svcadm emulator trigger --help' for the 25 event types"],
      [['user.created', '--count', '0'], 'svcadm: --count must be from 1 to 10000, got 0'],
      [['user.created', '--count', 'many'], "svcadm: --count must be a whole number from 1 to 10000, got 'many'"],
      [['user.created', '--count', '10001'], 'svcadm: --count must be from 1 to 10000, got 10001'],
    ] as const) {
      const r = await runCli(['emulator', 'trigger', ...args], { env });
      expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([2, '', line]);
    }
    expect((await described()).eventHead).toBe(before);
    expect((await emu.requests()).counters.tokenRequests).toBe(0);
  });

  it('fault queues a status fault that the next requests meet, and reset --faults clears it', async () => {
    const args = ['emulator', 'fault', '/rate-limit-policies', '--status', '503', '--count', '2', '--retry-after', '0'];
    const r = await runCli(args, { env, tty: { stdout: true } });
    expect(r).toEqual({
      code: 0,
      stdout: `Fault 1: the next 2 requests under /rate-limit-policies will answer 503 with Retry-After: 0 (emulator ${emu.url}).\n`,
      stderr: `Clear it: svcadm --domain ${emu.url} emulator reset --faults\n`,
    });
    expect(await faults()).toMatchObject([
      { id: 1, path: '/rate-limit-policies', status: 503, count: 2, retryAfter: 0 },
    ]);
    const get = await runCli(['policies', 'get', emu.fixtures.policyIdByAction.allow, '--max-retries', '0'], { env });
    expect(get.code).toBe(7);
    const cleared = await runCli(['emulator', 'reset', '--faults'], { env, tty: { stdout: true } });
    expect(cleared).toEqual({ code: 0, stdout: `Cleared the queued faults of the emulator ${emu.url}.\n`, stderr: '' });
    expect(await faults()).toEqual([]);
    const j = await runCli(['emulator', 'fault', '/users', '--status', '429', '-o', 'json'], { env });
    expect(JSON.parse(j.stdout)).toMatchObject({ emulator: emu.url, fault: { path: '/users', status: 429, count: 1 } });
  });

  it('fault refuses a bad path, status, count or Retry-After with exit 2, and queues nothing', async () => {
    for (const [args, line] of [
      [['/users'], 'svcadm: --status is required: the HTTP status the requests fail with'],
      [
        ['users', '--status', '503'],
        "svcadm: the path must start with /, got 'users' — e.g. /rate-limit-policies or /api/v2/users",
      ],
      [
        ['/users?x=1', '--status', '503'],
        'svcadm: the path is a path prefix: no spaces, control characters, query (?) or fragment (#)',
      ],
      [['/users', '--status', '200'], 'svcadm: --status must be from 400 to 599, got 200'],
      [['/users', '--status', '5xx'], "svcadm: --status must be a whole number from 400 to 599, got '5xx'"],
      [['/users', '--status', '503', '--count', '0'], 'svcadm: --count must be from 1 to 100000, got 0'],
      [
        ['/users', '--status', '429', '--retry-after', '-1'],
        "svcadm: --retry-after must be a whole number from 0 to 86400, got '-1'",
      ],
    ] as const) {
      const r = await runCli(['emulator', 'fault', ...args], { env });
      expect([args, r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([args, 2, '', line]);
    }
    expect(await faults()).toEqual([]);
  });

  it('reset puts the tenant back to its seed: a deleted user is back', async () => {
    const db = emu.fixtures.databaseConnectionId;
    await runCli(['connections', 'delete-user', db, '--email', 'bob+ci@example.com', '--yes'], { env });
    const gone = await runCli(['users', 'find', '--email', 'bob+ci@example.com', '-o', 'json'], { env });
    expect(gone.stdout).toBe('[]\n');
    const r = await runCli(['emulator', 'reset'], { env, tty: { stdout: true } });
    expect(r).toEqual({
      code: 0,
      stdout: `The emulator ${emu.url} is back to its seed: data, faults, settings, request log, client keys.\n`,
      stderr: '',
    });
    const back = await runCli(['users', 'find', '--email', 'bob+ci@example.com', '--query', '[].user_id'], { env });
    expect(back.stdout).toBe('[\n  "db|user-0002"\n]\n');
  });
});

describe('emulator trigger|fault|reset: a tenant that is not an emulator with a control API', () => {
  const closeLater = closeAfterEach();
  const secretEnv = (domain: string) => ({
    SVCADM_DOMAIN: domain,
    SVCADM_CLIENT_ID: 'abc',
    SVCADM_CLIENT_SECRET: 'secret-value',
    SVCADM_CONFIG_DIR: tempConfigDir(),
  });

  it('a remote tenant: a clear message, exit 2, nothing sent', async () => {
    const r = await runCli(['emulator', 'reset'], { env: secretEnv('tenant.example.com') });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svcadm: the active tenant tenant.example.com (from SVCADM_DOMAIN) is not a local emulator — the emulator tools drive an emulator on this machine; pick one with -p or --domain, or start one with: eval "$(svcadm emulator --print-env --port 0)"\n',
    });
  });

  it('an emulator with its control API off: exit 5, with the line that restarts it with the API on', async () => {
    const plain = closeLater(await startEmulator({ port: 0, eventRate: 0 }));
    const r = await runCli(['emulator', 'trigger', 'user.created'], { env: emulatorEnv(plain) });
    expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([
      5,
      '',
      `svcadm: the emulator at ${plain.url} (from SVCADM_DOMAIN) was started with its control API off (--no-control) — restart it with the control API on: kill "$SVCADM_EMULATOR_PID"; eval "$(svcadm emulator --print-env --port ${plain.port})"`,
    ]);
  });

  it('nothing listening: exit 7, asking whether it runs', async () => {
    const port = await refusedPort();
    const r = await runCli(['emulator', 'fault', '/users', '--status', '500'], {
      env: secretEnv(`http://127.0.0.1:${port}`),
    });
    expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([
      7,
      '',
      `svcadm: cannot reach the emulator at http://127.0.0.1:${port} (from SVCADM_DOMAIN): connection refused — is it running? start one with: eval "$(svcadm emulator --print-env --port 0)"`,
    ]);
  });
});

describe('emulator trigger|fault|reset against a server that misbehaves', () => {
  const loopback = loopbackPerTest();
  const envFor = (url: string) => ({
    SVCADM_DOMAIN: url,
    SVCADM_CLIENT_ID: 'abc',
    SVCADM_CLIENT_SECRET: 'secret-value',
    SVCADM_CONFIG_DIR: tempConfigDir(),
  });

  it('an answer of the wrong shape is a malformed answer: exit 7', async () => {
    const server = await loopback([json(200, { before: 1, offsets: 'all' })]);
    const r = await runCli(['emulator', 'trigger', 'user.created'], { env: envFor(server.url) });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: malformed answer from the emulator at ${server.url}/__emulator/events (status 200)\n`,
    });
    expect(server.requests.map((q) => [q.method, q.url, q.headers['content-type'], q.body])).toEqual([
      ['POST', '/__emulator/events', 'application/json', '{"type":"user.created","count":1}'],
    ]);
  });

  it('an answer over 1 MB is not read to its end: exit 7', async () => {
    const server = await loopback([json(200, `{"before":"${'x'.repeat(2 * 1024 * 1024)}"}`)]);
    const r = await runCli(['emulator', 'reset'], { env: envFor(server.url) });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: the emulator at ${server.url} (from SVCADM_DOMAIN) sent an answer over 1024 KB\n`,
    });
  });

  it('no answer: given up after --timeout, exit 7', async () => {
    let arrived: () => void = () => {};
    const request = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await loopback([() => arrived()]);
    const clock = new VirtualClock();
    const running = runCli(['emulator', 'reset', '--faults', '--timeout', '5s'], { env: envFor(server.url), clock });
    await request;
    clock.advance(5_000);
    expect(await running).toEqual({
      code: 7,
      stdout: '',
      stderr: `svcadm: cannot reach the emulator at ${server.url} (from SVCADM_DOMAIN): no answer within 5 s — raise --timeout\n`,
    });
  });
});

describe('the control API is documented: every route, in the help', () => {
  it('documents each route handleControl answers, and no other', () => {
    const source = readFileSync(new URL('../../src/emulator/control.ts', import.meta.url), 'utf8');
    const handled = [...source.matchAll(/case '(GET|POST|PUT|PATCH|DELETE) (\/__emulator[^']*)'/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    const documented = CONTROL_ROUTES.flatMap((r) =>
      [r.method, ...(r.alsoAs ?? [])].map((m) => `${m} ${CONTROL_PREFIX}${r.path === '/' ? '' : r.path}`),
    );
    expect([...documented].sort()).toEqual([...handled].sort());
  });

  it('svcadm emulator --help shows the control API', async () => {
    const r = await runCli(['emulator', '--help'], { env: { COLUMNS: '200' } });
    expect(r.code).toBe(0);
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      'Control API (on a loopback address unless --no-control, elsewhere with --control; JSON in and out; what emulator trigger, fault and reset call):',
    );
    for (const line of controlApiText().split('\n')) expect(flat).toContain(line.trim().replace(/\s+/g, ' '));
  });

  it('a mistyped tool is named, with the tools there are (exit 2)', async () => {
    const r = await runCli(['emulator', 'trigerr', 'user.created'], { env: { SVCADM_CONFIG_DIR: tempConfigDir() } });
    expect([r.code, r.stdout, r.stderr.split(' — ')[0]]).toEqual([
      2,
      '',
      "svcadm: unknown command 'trigerr' for 'svcadm emulator': its commands are trigger, fault, reset",
    ]);
  });

  it('parses without commander: the typed options', () => {
    expect(parseTriggerOptions('user.deleted', {})).toEqual({ type: 'user.deleted', count: 1 });
    expect(parseFaultOptions('/users', { status: '429', count: '3', retryAfter: '5' })).toEqual({
      path: '/users',
      status: 429,
      count: 3,
      retryAfter: 5,
    });
    expect(() => parseFaultOptions('/x y', { status: '500' })).toThrow(UsageError);
  });
});
