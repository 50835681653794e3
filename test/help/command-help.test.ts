import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { quietProgram } from '../helpers/program.js';
import { runCli } from '../helpers/run-cli.js';

/** The visible command tree, built the way `run` builds it, as name paths (`['policies', 'get']`). */
function commandPaths(): string[][] {
  const program = quietProgram();
  const help = program.createHelp();
  const walk = (command: Command, path: string[]): string[][] =>
    help
      .visibleCommands(command)
      .filter((c) => command.commands.includes(c)) // commander's implicit `help` of a group is not a command of ours
      .flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
  return walk(program, []);
}

const paths = commandPaths();

describe('help of every command', () => {
  it('covers the whole tree', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining(['policies get', 'events tail', 'profiles add', 'completion', 'emulator', 'help']),
    );
  });

  it.each(paths.map((p) => [p.join(' '), p]))('%s: description, examples and environment', async (_name, path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const [usage, , description] = r.stdout.split('\n');
    expect(usage).toMatch(new RegExp(`^Usage: svcadm ${path.join(' ')} `));
    expect(description?.trim(), 'a description').not.toBe('');
    expect(r.stdout).toMatch(/\nExamples:\n {2}\$ .*svcadm/);
    const isGroup = r.stdout.includes('\nCommands:\n');
    if (!isGroup && !['emulator', 'help'].includes(path.join(' '))) {
      expect(r.stdout).toMatch(/\nEnvironment:\n {2}[A-Z_]+/);
    }
    expect(r.stdout, 'no doubled blank lines').not.toMatch(/\n\n\n/);
  });
});

describe('svcadm help', () => {
  it('shows the help of a command given as a path', async () => {
    const viaHelp = await runCli(['help', 'policies', 'get']);
    const viaFlag = await runCli(['policies', 'get', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: svcadm policies get \[options\] <id>/);
  });

  it('shows a group, and the overview without a command', async () => {
    expect((await runCli(['help', 'events'])).stdout).toMatch(/^Usage: svcadm events \[options\] \[command\]/);
    expect((await runCli(['help'])).stdout).toBe((await runCli([])).stdout);
  });

  it('works inside a group too', async () => {
    const r = await runCli(['policies', 'help', 'get']);
    expect(r.stdout).toMatch(/^Usage: svcadm policies get /);
  });

  it('is a usage error for an unknown command', async () => {
    const r = await runCli(['help', 'policies', 'nope']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svcadm: unknown command 'policies nope' — see 'svcadm --help'\n",
    });
  });

  it('lists one example per command in a group', async () => {
    const r = await runCli(['profiles', '--help']);
    const examples = r.stdout
      .slice(r.stdout.indexOf('\nExamples:\n'))
      .split('\n')
      .filter((l) => l.startsWith('  $ '));
    expect(examples.map((l) => l.split(' ')[5])).toEqual(['add', 'list', 'use', 'show', 'migrate-secrets', 'remove']);
  });
});

describe('help piped', () => {
  it('lists the exit codes at 80 columns in lines no wrapper breaks: a code never parted from its meaning', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const at = r.stdout.indexOf('Exit codes:');
    const block = r.stdout.slice(at, r.stdout.indexOf('\n\n', at));
    expect(block).toBe(
      [
        'Exit codes:',
        '  0 ok, 1 bug, 2 usage, 3 auth, 4 forbidden, 5 not found,',
        '  6 rate limited, 7 network/5xx/malformed answer,',
        '  8 rejected by the service,',
        '  9 some tenants failed (--profiles),',
        '  10 differences found (diff),',
        '  74 output could not be written,',
        '  130 interrupted (Ctrl-C),',
        '  129/143 stopped (SIGHUP/SIGTERM)',
      ].join('\n'),
    );
    expect(Math.max(...r.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
  });
});

describe('help on a terminal', () => {
  /** The words of a help text, with the ` \` of wrapped examples taken out. */
  const words = (text: string) => text.replace(/ \\\n/g, '\n').split(/\s+/).filter(Boolean);

  it.each(paths.map((p) => [p.join(' '), p]))('%s: wrapped at 60 and 80 columns, no word broken', async (_n, path) => {
    const wide = await runCli([...path, '--help'], { tty: { stdout: true }, columns: 1000 });
    for (const columns of [60, 80]) {
      const r = await runCli([...path, '--help'], { tty: { stdout: true }, columns });
      expect(r.code).toBe(0);
      for (const line of r.stdout.split('\n')) {
        // A line is longer only when it is a single word that does not fit.
        if (line.length > columns) expect(line.trim()).not.toContain(' ');
      }
      expect(words(r.stdout)).toEqual(words(wide.stdout));
    }
  });

  it('a command shows its own options, then one line for the global ones', async () => {
    const r = await runCli(['users', 'permissions', '--help']);
    expect(r.stdout).toContain('\nGlobal options (svcadm --help): -p, --domain, -o, --query, …\n\nExamples:\n');
    expect(r.stdout).not.toContain('--client-secret');
    expect(r.stdout).not.toContain('Global Options:');
  });

  it("speaks in svcadm's words, not commander's", async () => {
    for (const path of [[], ...paths]) {
      const r = await runCli([...path, '--help']);
      expect(r.stdout).not.toContain('(choices:');
    }
    const choices = await runCli(['--help']);
    expect(choices.stdout).toContain(
      '  -o, --output <format>         table, wide (every column, nothing cut), json,\n                                yaml, ndjson or raw (strings bare, as jq -r)\n                                (default: table on a terminal, else json)\n',
    );
  });

  it('wraps a long example with \\ so that it still pastes as one command', async () => {
    const r = await runCli(['connections', 'delete-user', '--help'], { tty: { stdout: true }, columns: 60 });
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples).toContain(
      '  $ svcadm connections delete-user con_0aB1cD2eF3 --email \\\n      bob@example.com --yes --correlation-id "$CI_JOB_ID"\n',
    );
  });
});

describe('usage errors in our words', () => {
  it.each([
    [
      ['policies', 'get', 'x', '-o', 'xml'],
      "--output must be table, wide, json, yaml, ndjson or raw, got 'xml' — see 'svcadm --help'",
    ],
    [['completion', 'tcsh'], "the shell must be bash, zsh or fish, got 'tcsh' — see 'svcadm completion --help'"],
    [['provisionings', 'list', '--take'], "--take needs a value (<n>) — see 'svcadm provisionings list --help'"],
    [
      ['policies', 'get', 'a', 'b'],
      "too many arguments (2): the usage is svcadm policies get <id> — see 'svcadm policies get --help'",
    ],
  ])('%j', async (args, message) => {
    expect(await runCli(args)).toEqual({ code: 2, stdout: '', stderr: `svcadm: ${message}\n` });
  });
});
