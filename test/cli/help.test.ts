import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Context, InStream, OutStream } from '../../src/context.js';
import { buildProgram } from '../../src/program.js';
import { VirtualClock } from '../helpers/clock.js';
import { runCli } from '../helpers/run-cli.js';

/** The visible command tree, built the way `run` builds it, as name paths (`['policies', 'get']`). */
function commandPaths(): string[][] {
  const ctx: Context = {
    io: {
      stdout: new PassThrough() as PassThrough & OutStream,
      stderr: new PassThrough() as PassThrough & OutStream,
      stdin: new PassThrough() as PassThrough & InStream,
    },
    env: {},
    clock: new VirtualClock(0),
    random: () => 0.5,
    interrupt: new AbortController().signal,
  };
  const program = buildProgram(ctx);
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
    expect(examples.map((l) => l.split(' ')[5])).toEqual(['add', 'list', 'use', 'show', 'remove']);
  });
});
