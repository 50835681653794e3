import { describe, expect, it } from 'vitest';
import { withFileEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/run-cli.js';
import { connectMcp, INITIALIZE, rawMcp } from './helpers.js';

// Issue 28 point 13 and issue 29 point 9: what the client sends that is not one JSON-RPC message gets a JSON-RPC
// error, and the server goes on.

let env: Record<string, string>;
let host: string;
withFileEmulator(
  (each) => {
    env = each.env;
    host = new URL(each.emu.url).host;
  },
  { emulator: { eventRate: 0 } },
);

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('what is not one JSON-RPC message', () => {
  it('a message over 1 MB, text that is not JSON, a batch, an invalid request: each answered, and the server goes on', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'find_users_by_email', arguments: { email: `${'a'.repeat(1_500_000)}@example.com` } },
    });
    const steps: object[] = [
      { raw: `${huge}\n` },
      { raw: 'this is not json\n' },
      { raw: `${JSON.stringify([ping(3), ping(4)])}\n` },
      { jsonrpc: '2.0', id: 5, method: 42 },
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { arguments: {} } },
      ping(7),
    ];
    const answers: Record<string, unknown>[] = [];
    const r = await rawMcp(['mcp'], env, INITIALIZE, (line) => {
      if (line.id !== 1) answers.push(line);
      return steps.shift() ?? 'end';
    });
    expect(r.code).toBe(0);
    expect(answers).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: a message over 1 MB was skipped' },
      },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } },
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: batches are not supported; send each message on its own line',
        },
      },
      { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request: method must be a string' } },
      { jsonrpc: '2.0', id: 6, error: expect.objectContaining({ code: -32602 }) },
      { jsonrpc: '2.0', id: 7, result: {} },
    ]);
    expect(r.stderr).toBe(`svcadm mcp: serving 7 tools for ${host} on stdio (read-only)\n`);
  });
});

describe('wording (29.9)', () => {
  it('says "1 tool"', async () => {
    const s = await connectMcp(['mcp', '--tools', 'read_events'], env);
    try {
      expect(s.stderr()).toBe(`svcadm mcp: serving 1 tool for ${host} on stdio (read-only)\n`);
    } finally {
      await s.close();
    }
  });

  it('commands --json marks mcp as long-running, and delete-user as having --dry-run', async () => {
    const r = await runCli(['commands', '--json'], { env });
    const catalog = JSON.parse(r.stdout) as {
      commands: { command: string; streaming: boolean; options: { names: string[] }[]; commands: unknown[] }[];
    };
    const flat = (list: typeof catalog.commands): typeof catalog.commands =>
      list.flatMap((c) => [c, ...flat(c.commands as typeof catalog.commands)]);
    const all = flat(catalog.commands);
    expect(all.find((c) => c.command === 'mcp')?.streaming).toBe(true);
    const del = all.find((c) => c.command === 'connections delete-user');
    expect(del?.options.map((o) => o.names)).toContainEqual(['--dry-run']);
    expect(all.find((c) => c.command === 'mcp')?.options.map((o) => o.names)).toEqual(
      expect.arrayContaining([['--allow-writes'], ['--max-streams'], ['--profiles']]),
    );
  });
});
