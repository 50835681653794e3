import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type TestEmulator, withFileEmulator } from '../helpers/emulator.js';
import { runBin, tempConfigDir } from '../helpers/run-cli.js';
import { connectMcp, type McpSession } from './helpers.js';

// Issue 31, its MCP part: `svcadm mcp --profiles <pattern,…>` serves several tenants, each named by `profile`.

let emu: TestEmulator;
let dir: string;
const sessions: McpSession[] = [];

beforeEach(async () => {
  while (sessions.length > 0) await sessions.pop()?.close();
});
withFileEmulator(
  (each) => {
    emu = each.emu;
    dir = tempConfigDir();
    const admin = { domain: emu.url, clientId: emu.admin.clientId, clientSecret: emu.admin.clientSecret };
    const readOnly = { domain: emu.url, clientId: emu.readOnly.clientId, clientSecret: emu.readOnly.clientSecret };
    const profiles = { current: 'dev', profiles: { dev: admin, 'prod-eu': admin, 'prod-us': readOnly } };
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify(profiles), { mode: 0o600 });
  },
  { emulator: { eventRate: 0 } },
);

const env = () => ({ SVCADM_CONFIG_DIR: dir });
type Result = Awaited<ReturnType<McpSession['client']['callTool']>>;
const line = (r: Result) => (r.content as { text: string }[])[0]?.text;

async function session(args: string[]) {
  const s = await connectMcp(['mcp', ...args], env());
  sessions.push(s);
  return s;
}

describe('svcadm mcp --profiles', () => {
  it('offers list_profiles and a profile argument on every tool, limited to the matched profiles', async () => {
    const s = await session(['--profiles', 'prod-*']);
    const { tools } = await s.client.listTools();
    expect(tools[0]?.name).toBe('list_profiles');
    // diff_tenants names its two profiles itself (left, right).
    for (const tool of tools.slice(1).filter((t) => t.name !== 'diff_tenants')) {
      expect(tool.inputSchema.properties).toHaveProperty('profile');
    }
    expect(s.stderr()).toBe('svcadm mcp: serving 9 tools for 2 profiles (prod-eu, prod-us) on stdio (read-only)\n');
    const listed = await s.client.callTool({ name: 'list_profiles', arguments: {} });
    expect(listed.structuredContent).toEqual({
      profiles: [
        { profile: 'prod-eu', domain: emu.url },
        { profile: 'prod-us', domain: emu.url },
      ],
    });
  });

  it('acts on the profile named, each with its own credentials, and refuses one outside the set', async () => {
    const s = await session(['--profiles', 'prod-*', '--allow-writes']);
    const ok = await s.client.callTool({ name: 'list_connections', arguments: { profile: 'prod-eu', take: 1 } });
    expect(ok.isError).toBeUndefined();
    await emu.clearRequests();
    const outside = await s.client.callTool({ name: 'list_connections', arguments: { profile: 'dev' } });
    expect(line(outside)).toBe("profile 'dev' is not one this server serves — the profiles are: prod-eu, prod-us");
    const unnamed = await s.client.callTool({ name: 'list_connections', arguments: {} });
    expect(line(unnamed)).toBe(
      'profile is required: this server serves several tenants — give profile, one of: prod-eu, prod-us (list_profiles names their domains)',
    );
    expect((await emu.requests()).requests).toEqual([]);
    // prod-us is the read-only client, with a token of its own: a dry run needs reads only.
    const preview = await s.client.callTool({
      name: 'delete_connection_user',
      arguments: {
        profile: 'prod-us',
        connection_id: emu.fixtures.databaseConnectionId,
        email: 'alice@example.com',
        dry_run: true,
      },
    });
    expect(preview.isError).toBeUndefined();
  });

  it('serves the set resolved at start: a matching profile added later is refused, and list_profiles never names it', async () => {
    const s = await session(['--profiles', 'prod-*']);
    const store = JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')) as { profiles: Record<string, unknown> };
    store.profiles['prod-ap'] = store.profiles['prod-eu'];
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify(store), { mode: 0o600 });
    await emu.clearRequests();
    const later = await s.client.callTool({ name: 'list_connections', arguments: { profile: 'prod-ap', take: 1 } });
    expect(later.isError).toBe(true);
    expect(line(later)).toBe("profile 'prod-ap' is not one this server serves — the profiles are: prod-eu, prod-us");
    expect((await emu.requests()).requests).toEqual([]);
    const listed = await s.client.callTool({ name: 'list_profiles', arguments: {} });
    expect(listed.structuredContent).toEqual({
      profiles: [
        { profile: 'prod-eu', domain: emu.url },
        { profile: 'prod-us', domain: emu.url },
      ],
    });
  });

  it.each([
    [
      ['mcp', '--profiles', 'qa-*'],
      "svcadm: --profiles 'qa-*' matches no profile; the profiles are: dev, prod-eu, prod-us\n",
    ],
    [
      ['-p', 'dev', 'mcp', '--profiles', 'prod-*'],
      'svcadm: --profiles cannot be combined with -p: each profile is taken as a unit — drop -p, or run one tenant with -p <name>\n',
    ],
    [
      ['mcp', '--profiles', 'prod-*,'],
      "svcadm: --profiles needs profile names or patterns separated by commas, got 'prod-*,'\n",
    ],
  ])('refuses %j: exit 2, nothing served', async (args, stderr) => {
    const r = await runBin(args, env());
    expect(r).toEqual({ code: 2, stdout: '', stderr });
  });

  it('serves the profiles SVCADM_PROFILES names, as the global --profiles', async () => {
    const s = await connectMcp(['mcp'], { ...env(), SVCADM_PROFILES: 'dev,prod-us' });
    sessions.push(s);
    expect(s.stderr()).toBe('svcadm mcp: serving 9 tools for 2 profiles (dev, prod-us) on stdio (read-only)\n');
    const listed = await s.client.callTool({ name: 'list_profiles', arguments: {} });
    expect(listed.structuredContent).toEqual({
      profiles: [
        { profile: 'dev', domain: emu.url },
        { profile: 'prod-us', domain: emu.url },
      ],
    });
    const ok = await s.client.callTool({ name: 'list_connections', arguments: { profile: 'dev', take: 1 } });
    expect(ok.isError).toBeUndefined();
  });

  it('takes each profile as a unit: the credential variables of the shell are ignored, said once', async () => {
    const s = await connectMcp(['mcp', '--profiles', 'prod-eu'], {
      ...env(),
      SVCADM_DOMAIN: 'elsewhere.example.com',
      SVCADM_CLIENT_ID: 'someone-else',
    });
    sessions.push(s);
    expect(s.stderr()).toBe(
      'Using each profile as a whole: ignoring SVCADM_DOMAIN, SVCADM_CLIENT_ID from the environment.\n' +
        'svcadm mcp: serving 9 tools for 1 profile (prod-eu) on stdio (read-only)\n',
    );
    const ok = await s.client.callTool({ name: 'list_connections', arguments: { take: 1 } });
    expect(ok.isError).toBeUndefined();
  });

  it('names --profiles among its options, in its help and in svcadm commands --json (the global option, read by mcp)', async () => {
    const help = await runBin(['mcp', '--help'], env());
    expect(help.stdout).toContain(
      "  --profiles <pattern,...>      serve these profiles (names or globs, e.g.\n                                'prod-*'), each taken as a unit: the tools take\n                                a profile argument, and list_profiles names them\n",
    );
    const catalog = JSON.parse((await runBin(['commands', '--json'], env())).stdout) as {
      commands: { command: string; options: { flags: string; env: string | null }[] }[];
    };
    const mcp = catalog.commands.find((c) => c.command === 'mcp');
    expect(mcp?.options.find((o) => o.flags === '--profiles <pattern,...>')).toMatchObject({ env: 'SVCADM_PROFILES' });
  });
});
