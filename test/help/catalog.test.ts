import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Catalog, CommandEntry } from '../../src/help/catalog.js';
import { quietProgram } from '../helpers/program.js';
import { runCli } from '../helpers/run-cli.js';

const program = (): Command => quietProgram();

/** Every command the commander tree shows, read with commander's own Help (not svcadm's walk). */
function commanderCommands(root: Command): Map<string, Command> {
  const help = root.createHelp();
  const found = new Map<string, Command>();
  const walk = (command: Command, path: string[]) => {
    for (const c of help.visibleCommands(command)) {
      if (!command.commands.includes(c) || c.name() === 'help') continue;
      const name = [...path, c.name()];
      found.set(name.join(' '), c);
      walk(c, name);
    }
  };
  walk(root, []);
  return found;
}

function entries(list: readonly CommandEntry[]): CommandEntry[] {
  return list.flatMap((e) => [e, ...entries(e.commands)]);
}

async function catalog(): Promise<Catalog> {
  const r = await runCli(['commands', '--json']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Catalog;
}

describe('svcadm commands --json', () => {
  it('has an entry for every command of the commander tree, with its arguments and options', async () => {
    const root = program();
    const tree = commanderCommands(root);
    const all = entries((await catalog()).commands);
    expect(all.map((e) => e.command)).toEqual([...tree.keys()]);
    const help = root.createHelp();
    for (const entry of all) {
      const command = tree.get(entry.command) as Command;
      expect(entry.description).toBe(command.description());
      expect(entry.arguments.map((a) => [a.name, a.required, a.variadic])).toEqual(
        command.registeredArguments.map((a) => [a.name(), a.required, a.variadic]),
      );
      const options = help.visibleOptions(command).filter((o) => o.long !== '--help');
      expect(entry.options.map((o) => o.flags)).toEqual(options.map((o) => o.flags));
      expect(entry.options.map((o) => o.description)).toEqual(options.map((o) => o.description));
      expect(entry.usage).toBe(`svcadm ${entry.command} ${command.usage()}`);
    }
  });

  it('lists the global options with their environment variables, types and defaults', async () => {
    const { global_options: globals } = await catalog();
    const byName = new Map(globals.map((o) => [o.names[o.names.length - 1], o]));
    expect(byName.get('--domain')).toEqual({
      flags: '--domain <domain>',
      names: ['--domain'],
      description: 'tenant domain, host:port or https://host[:port]',
      type: 'string',
      value_name: 'domain',
      choices: null,
      list: false,
      default: null,
      repeatable: false,
      negates: false,
      env: 'SVCADM_DOMAIN',
      required: false,
    });
    expect(byName.get('--profile')).toMatchObject({ names: ['-p', '--profile'], env: 'SVCADM_PROFILE' });
    expect(byName.get('--max-retries')).toMatchObject({ type: 'integer', default: '5', env: null });
    expect(byName.get('--timeout')).toMatchObject({ type: 'duration', default: '30s' });
    expect(byName.get('--output')).toMatchObject({ type: 'string', choices: expect.arrayContaining(['json']) });
    expect(byName.get('--no-color')).toMatchObject({ flags: '--no-color', type: 'boolean', negates: true });
    for (const [name, env] of [
      ['--client-id', 'SVCADM_CLIENT_ID'],
      ['--client-secret', 'SVCADM_CLIENT_SECRET'],
      ['--token', 'SVCADM_TOKEN'],
      ['--auth-url', 'SVCADM_AUTH_URL'],
      ['--audience', 'SVCADM_AUDIENCE'],
    ]) {
      expect(byName.get(name as string)?.env).toBe(env);
    }
  });

  it('lists every exit code of the contract', async () => {
    const { exit_codes: codes } = await catalog();
    expect(codes.map((c) => [c.code, c.kind])).toEqual([
      [0, 'ok'],
      [1, 'bug'],
      [2, 'usage'],
      [3, 'auth'],
      [4, 'forbidden'],
      [5, 'not_found'],
      [6, 'rate_limited'],
      [7, 'network'],
      [8, 'rejected'],
      [9, 'partial'],
      [10, 'differs'],
      [74, 'output'],
      [129, 'SIGHUP'],
      [130, 'SIGINT'],
      [143, 'SIGTERM'],
    ]);
    expect(codes.find((c) => c.code === 2)?.meaning).toBe(
      'usage error or invalid input; nothing was sent to the service',
    );
  });

  it('carries examples, environment variables, repeatable options and argument choices', async () => {
    const all = new Map(entries((await catalog()).commands).map((e) => [e.command, e]));
    expect(all.get('policies get')?.examples).toEqual([
      'svcadm policies get rlp_01HZX3',
      'svcadm policies get rlp_01HZX3 -o json | jq .configuration',
    ]);
    expect(all.get('policies get')?.environment[0]?.names).toContain('SVCADM_DOMAIN');
    expect(all.get('profiles list')?.environment).toEqual([
      { names: ['SVCADM_CONFIG_DIR'], description: 'folder of the profile store and token cache' },
      { names: ['NO_COLOR', 'FORCE_COLOR', 'TERM'], description: 'colour (none on TERM=dumb)' },
    ]);
    const type = all.get('events tail')?.options.find((o) => o.flags.startsWith('--type'));
    expect(type).toMatchObject({ repeatable: true, list: true, type: 'string' });
    expect(type?.choices).toContain('user.created');
    expect(all.get('events tail')?.options.find((o) => o.flags.startsWith('--cursor-file'))?.type).toBe('path');
    expect(all.get('completion')?.arguments).toEqual([
      {
        name: 'shell',
        description: 'bash, zsh or fish',
        required: true,
        variadic: false,
        choices: ['bash', 'zsh', 'fish'],
        suggestions: null,
      },
    ]);
    // Groups have subcommands and no environment of their own.
    expect(all.get('users')).toMatchObject({ environment: [], arguments: [] });
    expect(all.get('users')?.commands.map((c) => c.command)).toEqual(['users find', 'users permissions']);
  });
});

describe('--help --json', () => {
  it("prints a command's entry, the same as in svcadm commands --json", async () => {
    const all = new Map(entries((await catalog()).commands).map((e) => [e.command, e]));
    for (const argv of [
      ['users', 'permissions', '--help', '--json'],
      ['--json', 'users', 'permissions', '--help'],
      ['users', 'permissions', '--help', '-o', 'json'],
      ['help', 'users', 'permissions', '--json'],
    ]) {
      const r = await runCli(argv);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(all.get('users permissions'));
    }
    const group = await runCli(['events', '--help', '--json']);
    expect(JSON.parse(group.stdout)).toEqual(all.get('events'));
  });

  it('at the root prints the whole catalog', async () => {
    const r = await runCli(['--help', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await catalog());
  });

  it('is the text help without JSON asked for, even off a terminal', async () => {
    const r = await runCli(['policies', 'get', '--help']);
    expect(r.stdout).toMatch(/^Usage: svcadm policies get \[options\] <id>\n/);
    const table = await runCli(['policies', 'get', '--help', '-o', 'table']);
    expect(table.stdout).toBe(r.stdout);
  });
});

describe('svcadm commands', () => {
  it('prints the tree for people, even off a terminal', async () => {
    const r = await runCli(['commands']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Administer an identity service tenant through its management interface',
      '',
      'Commands:',
    ]);
    const width = (lines.find((l) => l.startsWith('    add <name>'))?.indexOf('save a profile') ?? 0) - 4;
    expect(lines).toContain(`  ${'users'.padEnd(width)}  users of the tenant`);
    expect(lines).toContain(
      `  ${'  permissions <user-id>'.padEnd(width)}  list the permissions of a user, direct and from directly assigned roles (GET /users/{id}/permissions)`,
    );
    expect(lines).toContain(
      `  ${'completion <shell>'.padEnd(width)}  print the shell completion script for bash, zsh or fish`,
    );
    expect(lines.at(-2)).toBe(
      "Run 'svcadm <command> --help' for a command's options and examples, 'svcadm commands --json' for all of it as JSON.",
    );
  });

  it('prints JSON for -o json and one line for -o ndjson', async () => {
    const json = await runCli(['commands', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(await catalog());
    const ndjson = await runCli(['commands', '-o', 'ndjson']);
    expect(ndjson.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(ndjson.stdout)).toEqual(await catalog());
  });
});

describe('svcadm commands --json: what a script or an agent must know before running a command', () => {
  it('marks the commands that change data and those that never return by themselves', async () => {
    // `emulator` has subcommands (trigger, fault, reset) and runs by itself too: its own options say so.
    const all = entries((await catalog()).commands).filter((e) => e.commands.length === 0 || e.options.length > 0);
    const marked = (key: 'destructive' | 'streaming') =>
      all
        .filter((e) => e[key])
        .map((e) => e.command)
        .sort();
    expect(marked('destructive')).toEqual(['api', 'connections delete-user']);
    expect(marked('streaming')).toEqual(['emulator', 'events tail', 'mcp']);
    for (const entry of all) {
      expect(typeof entry.destructive).toBe('boolean');
      expect(typeof entry.streaming).toBe('boolean');
    }
  });

  it('marks required options: --email of users find and delete-user, and no other', async () => {
    const { commands, global_options: globals } = await catalog();
    const required = entries(commands).flatMap((e) =>
      e.options.filter((o) => o.required).map((o) => `${e.command} ${o.flags}`),
    );
    expect(required).toEqual(['users find --email <address>', 'connections delete-user --email <email>']);
    expect(globals.filter((o) => o.required)).toEqual([]);
  });

  it('lists the exit codes and svcadm error codes of the envelope', async () => {
    const { exit_codes: exits, error_codes: codes } = await catalog();
    expect(exits.map((e) => e.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 74, 129, 130, 143]);
    expect(codes.map((e) => e.code)).toEqual([
      'usage',
      'confirmation_required',
      'not_confirmed',
      'config_invalid',
      'profile_not_found',
      'file_unreadable',
      'file_unwritable',
      'file_unsafe',
      'no_credentials',
      'unauthorized',
      'token_refused',
      'forbidden',
      'stream_limit',
      'not_found',
      'rate_limited',
      'rejected',
      'server_error',
      'network',
      'timeout',
      'malformed_answer',
      'list_changed',
      'list_too_long',
      'plain_http',
      'forward_failed',
      'forward_rejected',
      'cursor_file_failed',
      'outcome_unknown',
      'clock_skew',
      'wait_too_long',
      'keyring_unavailable',
      'output_failed',
      'not_an_emulator',
      'control_disabled',
      'tenants_failed',
      'cancelled',
      'interrupted',
      'terminated',
      'hung_up',
      'internal_error',
    ]);
    expect(codes.find((e) => e.code === 'confirmation_required')?.meaning).toBe(
      'a destructive command off a terminal (or driven by an agent) without --yes; nothing was sent',
    );
  });

  it('a required option left out is our usage error: exit 2, nothing sent', async () => {
    const r = await runCli(['connections', 'delete-user', 'con_1', '--yes', '-o', 'json']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        '{"error":{"status":null,"code":"usage","message":"--email is required (<email>)","hint":"see \'svcadm connections delete-user --help\'","exit_code":2}}\n',
    });
  });
});
