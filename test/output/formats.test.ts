import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { json, startLoopback } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let env: Record<string, string>;

withFileEmulator((each) => ({ emu, env } = each));

async function sentNothing(): Promise<void> {
  const { counters } = await emu.requests();
  expect(counters.interfaceRequests + counters.tokenRequests).toBe(0);
}

describe('--query', () => {
  it('reshapes the JSON document: the list body as sent', async () => {
    const r = await runCli(
      ['provisionings', 'list', '--take', '3', '-q', '--query', 'directory_provisionings[].connection_id'],
      { env },
    );
    const body = JSON.parse((await runCli(['provisionings', 'list', '--take', '3', '-o', 'json'], { env })).stdout);
    const ids = body.directory_provisionings.map((p: { connection_id: string }) => p.connection_id);
    expect(r).toEqual({ code: 0, stderr: '', stdout: `${JSON.stringify(ids, null, 2)}\n` });
  });

  it('applies per item with ndjson, leaving out the items it gives nothing for (null)', async () => {
    const r = await runCli(
      [
        'users',
        'permissions',
        emu.fixtures.userId,
        '-o',
        'ndjson',
        '--query',
        "permission_name == 'impersonate:users' && description || null",
      ],
      { env },
    );
    // The one match, its escape and bidi characters escaped as JSON.
    expect(r).toEqual({
      code: 0,
      stderr: '',
      stdout: '"Act as any user corp-\\u001b[31mred\\u001b[0m-\\u202eexe.txt\\u202c"\n',
    });
  });

  it('applies to the whole array with --all -o json', async () => {
    const r = await runCli(['users', 'permissions', emu.fixtures.bulkUserId, '--all', '--query', 'length(@)'], { env });
    expect(r).toEqual({ code: 0, stderr: '', stdout: '1200\n' });
  });

  it('gives JSON without -o, even on a terminal: a reshaped value is data, not a table', async () => {
    const r = await runCli(
      ['policies', 'get', emu.fixtures.policyIdByAction.block, '--query', 'configuration.action'],
      {
        env: { ...env, NO_COLOR: '1' },
        tty: { stdout: true },
      },
    );
    expect(r).toEqual({ code: 0, stderr: '', stdout: '"block"\n' });
  });

  it('applies to each event of a tail', async () => {
    const r = await runCli(
      ['events', 'tail', '--since', '7d', '--max-events', '3', '-o', 'ndjson', '--query', '{type: type, id: event.id}'],
      { env },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(['type', 'id']);
  });

  it.each([
    ['[?', 'invalid --query \'[?\': Syntax error: invalid token (EOF): ""'],
    ['nosuch(id)', "invalid --query 'nosuch(id)': unknown function nosuch()"],
  ])('%s is exit 2 before anything is sent', async (query, message) => {
    const r = await runCli(['policies', 'get', 'rlp_x', '--query', query], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        status: null,
        code: 'usage',
        message,
        ...(query === '[?' ? { hint: 'see https://jmespath.org for the syntax' } : {}),
        exit_code: 2,
      },
    });
    await sentNothing();
  });

  it('does not apply to a table (exit 2, nothing sent)', async () => {
    const r = await runCli(['policies', 'get', 'rlp_x', '-o', 'wide', '--query', 'id'], { env });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svcadm: --query does not apply to -o wide — it reshapes -o json, yaml or ndjson\n',
    });
    await sentNothing();
  });

  it('is exit 2 when it fails on the data it was given', async () => {
    const r = await runCli(['policies', 'get', emu.fixtures.policyIdByAction.block, '--query', 'abs(id)'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toBe(
      "--query 'abs(id)' failed on this data: Invalid type: abs() expected argument 1 to be type (number) but received type string instead.",
    );
  });

  it('answers null, never a function, for what JSON does not have', async () => {
    const r = await runCli(['policies', 'get', emu.fixtures.policyIdByAction.block, '--query', 'constructor'], { env });
    expect(r).toEqual({ code: 0, stderr: '', stdout: 'null\n' });
  });
});

describe('-o yaml', () => {
  it('is the same data as -o json, for one page and for --all', async () => {
    for (const args of [['--take', '5'], ['--all']]) {
      const asJson = await runCli(['provisionings', 'list', ...args, '-o', 'json'], { env });
      const asYaml = await runCli(['provisionings', 'list', ...args, '-o', 'yaml', '-q'], { env });
      expect(asYaml.code).toBe(0);
      expect(asYaml.stderr).toBe('');
      // A page's checkpoint carries the time it was made: the two runs differ there only.
      const data = (value: unknown) => (args[0] === '--all' ? value : { ...(value as object), next: undefined });
      expect(data(parseYaml(asYaml.stdout))).toEqual(data(JSON.parse(asJson.stdout)));
    }
  });

  it('writes strings with escapes or bidi characters double-quoted and escaped', async () => {
    const r = await runCli(
      [
        'provisionings',
        'list',
        '--take',
        '10',
        '-q',
        '-o',
        'yaml',
        '--query',
        'directory_provisionings[7].connection_name',
      ],
      { env },
    );
    expect(r).toEqual({ code: 0, stderr: '', stdout: '"corp-\\e[31mred\\e[0m-\\u202eexe.txt\\u202c"\n' });
    expect(parseYaml(r.stdout)).toBe(emu.fixtures.hostileText);
  });

  it('prints a resource as a document', async () => {
    const server = await startLoopback([json(200, { id: 'p1', configuration: { action: 'allow', limit: 5 } })]);
    try {
      const r = await runCli(['policies', 'get', 'p1', '-o', 'yaml'], {
        env: { SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 't' },
      });
      expect(r).toEqual({ code: 0, stderr: '', stdout: 'id: p1\nconfiguration:\n  action: allow\n  limit: 5\n' });
    } finally {
      await server.close();
    }
  });

  it('prints an empty list as [] with --all', async () => {
    const server = await startLoopback([json(200, { directory_provisionings: [] })]);
    try {
      const r = await runCli(['provisionings', 'list', '--all', '-o', 'yaml'], {
        env: { SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 't' },
      });
      expect(r).toEqual({ code: 0, stderr: '', stdout: '[]\n' });
    } finally {
      await server.close();
    }
  });

  it('prints each event of a tail as a document of a YAML stream', async () => {
    const r = await runCli(['events', 'tail', '--since', '7d', '--max-events', '2', '-o', 'yaml'], { env });
    expect(r.code).toBe(0);
    const docs = r.stdout.split(/^---\n/m).slice(1);
    expect(docs).toHaveLength(2);
    for (const doc of docs) expect(Object.keys(parseYaml(doc))[0]).toBe('type');
  });
});

describe('JSON on a terminal', () => {
  const body = { id: 'p1', limit: 20, enabled: true, note: null, name: 'a "b" 7' };

  it('is coloured (keys, strings, numbers, literals), as gh does', async () => {
    const server = await startLoopback([json(200, body)]);
    try {
      const r = await runCli(['policies', 'get', 'p1', '-o', 'json'], {
        env: { SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 't' },
        tty: { stdout: true },
      });
      // Since the colour module (issue 21) Node's util.styleText makes the codes: bold and blue one after the other.
      const key = (k: string) => `\x1b[1m\x1b[34m"${k}"\x1b[39m\x1b[22m:`;
      expect(r.stdout).toBe(
        `{\n  ${key('id')} \x1b[32m"p1"\x1b[39m,\n  ${key('limit')} \x1b[36m20\x1b[39m,\n  ${key('enabled')} \x1b[33mtrue\x1b[39m,\n  ${key('note')} \x1b[90mnull\x1b[39m,\n  ${key('name')} \x1b[32m"a \\"b\\" 7"\x1b[39m\n}\n`,
      );
    } finally {
      await server.close();
    }
  });

  it('is plain when piped, even with FORCE_COLOR, and with NO_COLOR on a terminal', async () => {
    const expected = `${JSON.stringify(body, null, 2)}\n`;
    const server = await startLoopback([json(200, body)]);
    try {
      const base = { SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 't' };
      const piped = await runCli(['policies', 'get', 'p1', '-o', 'json'], { env: { ...base, FORCE_COLOR: '1' } });
      const noColor = await runCli(['policies', 'get', 'p1', '-o', 'json'], {
        env: { ...base, NO_COLOR: '1' },
        tty: { stdout: true },
      });
      expect(piped.stdout).toBe(expected);
      expect(noColor.stdout).toBe(expected);
    } finally {
      await server.close();
    }
  });
});
