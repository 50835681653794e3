import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  eventData,
  hostileServerPerTest,
  sse,
  sseMessage,
} from '../helpers/hostile-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// `events tail` and `events replay` print a stream: with `-o json` that is NDJSON, one JSON document a line (a JSON
// array could never end). Asked for explicitly (`-o json`, `--json`), svcadm says so once on stderr; `-o ndjson`,
// JSON as the default (off a terminal, for --query, for an agent), and `-q` say nothing.

const hostile = hostileServerPerTest();
const NOTICE =
  'svcadm: this command prints JSON as NDJSON, one document a line (-o ndjson prints the same without this notice)\n';
const LINES =
  '{"type":"user.created","offset":"c1","event":{"id":"e1"}}\n{"type":"user.deleted","offset":"c2","event":{"id":"e2"}}\n';

const STREAM = sse(
  [sseMessage('c1', 'user.created', eventData('c1', 'e1')), sseMessage('c2', 'user.deleted', eventData('c2', 'e2'))],
  { keepOpen: true },
);
const TAIL = ['events', 'tail', '--since', '1h', '--max-events', '2'];

describe('events tail -o json: NDJSON, and said so once', () => {
  it('-o json and --json: the notice once on stderr, NDJSON on stdout', async () => {
    const server = await hostile({ api: STREAM });
    for (const format of [['-o', 'json'], ['--json']]) {
      expect(await runCli([...TAIL, ...format], { env: server.env() }), format.join(' ')).toEqual({
        code: 0,
        stdout: LINES,
        stderr: NOTICE,
      });
    }
  });

  it('-o ndjson, json by default off a terminal, and -o json -q: the same lines, no notice', async () => {
    const server = await hostile({ api: STREAM });
    for (const format of [['-o', 'ndjson'], [], ['-o', 'json', '-q'], ['--json', '--quiet']]) {
      expect(await runCli([...TAIL, ...format], { env: server.env() }), format.join(' ')).toEqual({
        code: 0,
        stdout: LINES,
        stderr: '',
      });
    }
  });

  it('JSON as the default of --query or of an agent: no notice; -o json given with them: the notice', async () => {
    const server = await hostile({ api: STREAM });
    const query = ['--query', 'event.id'];
    const agent = { SVCADM_AGENT: '1' };
    expect(await runCli([...TAIL, ...query], { env: server.env() })).toEqual({
      code: 0,
      stdout: '"e1"\n"e2"\n',
      stderr: '',
    });
    expect(await runCli([...TAIL, ...query, '-o', 'json'], { env: server.env() })).toEqual({
      code: 0,
      stdout: '"e1"\n"e2"\n',
      stderr: NOTICE,
    });
    expect(await runCli(TAIL, { env: server.env(agent) })).toEqual({ code: 0, stdout: LINES, stderr: '' });
    expect(await runCli([...TAIL, '--json'], { env: server.env(agent) })).toEqual({
      code: 0,
      stdout: LINES,
      stderr: NOTICE,
    });
  });

  it('across tenants: the notice once, not once a tenant', async () => {
    const [a, b] = [await hostile({ api: STREAM }), await hostile({ api: STREAM })];
    const dir = tempConfigDir();
    const tenant = (url: string) => ({ domain: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    const profiles = { dev: tenant(a.url), prod: tenant(b.url) };
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ profiles }), { mode: 0o600 });
    const r = await runCli(['--profiles', '*', ...TAIL, '-o', 'json'], { env: { SVCADM_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(NOTICE);
    expect(
      r.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line).profile)
        .sort(),
    ).toEqual(['dev', 'dev', 'prod', 'prod']);
  });

  it('events replay -o json: the notice once, the recorded lines on stdout; -o ndjson: none', async () => {
    const file = join(tempConfigDir(), 'events.ndjson');
    writeFileSync(file, LINES);
    expect(await runCli(['events', 'replay', file, '-o', 'json'])).toEqual({ code: 0, stdout: LINES, stderr: NOTICE });
    expect(await runCli(['events', 'replay', file, '-o', 'ndjson'])).toEqual({ code: 0, stdout: LINES, stderr: '' });
  });
});
