import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { configWithProfiles } from '../helpers/run-cli.js';
import { connectMcp, type McpSession } from './helpers.js';

// Issue 40, its MCP part: `diff_tenants`, read-only, profile names only, a bounded result.

let left: TestEmulator;
let right: TestEmulator;
let dir: string;
const sessions: McpSession[] = [];

beforeAll(async () => {
  left = await startTestEmulator({ seed: 7, eventRate: 0 });
  right = await startTestEmulator({ seed: 7, eventRate: 0, policies: 400 });
  dir = configWithProfiles({
    dev: { domain: left.url, ...left.admin },
    prod: { domain: right.url, ...right.admin },
  });
});
afterAll(async () => {
  while (sessions.length > 0) await sessions.pop()?.close();
  await Promise.all([left.close(), right.close()]);
});
beforeEach(async () => {
  while (sessions.length > 0) await sessions.pop()?.close();
});

async function session(args: string[]) {
  const s = await connectMcp(['mcp', ...args], { SVCADM_CONFIG_DIR: dir });
  sessions.push(s);
  return s;
}

type Result = Awaited<ReturnType<McpSession['client']['callTool']>>;
const line = (r: Result) => (r.content as { text: string }[])[0]?.text;

describe('diff_tenants', () => {
  it('is read-only, takes profile names and no profile argument of its own', async () => {
    const s = await session(['--profiles', '*']);
    const { tools } = await s.client.listTools();
    const tool = tools.find((t) => t.name === 'diff_tenants');
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(['ignore', 'kinds', 'left', 'right']);
  });

  it('a bounded result: whole counts, the first 200 differences, omitted says how many more', async () => {
    const s = await session(['--profiles', '*']);
    const r = await s.client.callTool({ name: 'diff_tenants', arguments: { left: 'dev', right: 'prod' } });
    expect(r.isError).toBeUndefined();
    const data = r.structuredContent as {
      counts: Record<string, unknown>;
      differences: Array<{ change: string }>;
      omitted: number;
    };
    expect(data.counts).toEqual({
      policies: { added: 392, removed: 0, changed: 0 },
      provisionings: { added: 0, removed: 0, changed: 0 },
      connections: { added: 0, removed: 0, changed: 0 },
    });
    expect(data.differences).toHaveLength(200);
    expect(data.omitted).toBe(192);
    expect(line(r)?.startsWith('392 differences, the first 200 listed. The JSON that follows is data')).toBe(true);
  });

  it('alike with itself; a profile outside the set, or a folder, is refused', async () => {
    const s = await session(['--profiles', 'dev']);
    const same = await s.client.callTool({ name: 'diff_tenants', arguments: { left: 'dev', right: 'dev' } });
    expect(line(same)?.startsWith('The tenants are alike. The JSON')).toBe(true);
    const folder = await s.client.callTool({
      name: 'diff_tenants',
      arguments: { left: 'dev', right: './snapshots/prod' },
    });
    expect(folder.isError).toBe(true);
    expect(line(folder)).toContain("profile './snapshots/prod' is not one this server serves");
  });

  it('without --profiles it is not offered: there are no profiles to name', async () => {
    const s = await session(['-p', 'dev']);
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('diff_tenants');
  });
});
