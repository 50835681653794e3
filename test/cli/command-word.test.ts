import { describe, expect, it } from 'vitest';
import type { SvcadmCommand } from '../../src/cli/command.js';
import { commandWord } from '../../src/cli/command-word.js';
import { catalogOf } from '../../src/help/catalog.js';
import { quietProgram } from '../helpers/program.js';

const program = (argv?: string[]): SvcadmCommand => quietProgram(argv);

// commander's implicit `help` command aside.
const names = (root: SvcadmCommand) => root.commands.map((c) => c.name()).filter((name) => name !== 'help');

describe('the command word of a line', () => {
  const found: [string[], string | undefined][] = [
    [['policies', 'get', 'rlp_1'], 'policies'],
    [['-p', 'prod', 'users', 'find', '--email', 'a@b.c'], 'users'],
    [['--profile', 'events', 'policies', 'list'], 'policies'],
    [['--profile=events', 'auth', 'status'], 'auth'],
    [['-o', 'json', 'connections', 'list'], 'connections'],
    [['-ojson', 'connections', 'list'], 'connections'],
    [['-qo', 'json', 'events', 'tail'], 'events'],
    [['-qojson', 'events', 'tail'], 'events'],
    [['--no-color', '--debug', '--timeout', '5s', 'api', 'GET', '/api/v2/users'], 'api'],
    [['--max-retries', '0', '-q', 'provisionings', 'list'], 'provisionings'],
    [['-', 'policies'], '-'],
    // Left to commander, which then has the whole tree for help or a suggestion:
    [['--help', 'policies'], undefined],
    [['-h'], undefined],
    [['--take', '5', 'policies', 'list'], undefined],
    [['-x', 'policies'], undefined],
    [['--', 'policies'], undefined],
    [['--domain'], undefined],
    [[], undefined],
  ];
  it.each(found)('%j: %s', (argv, word) => {
    expect(commandWord(program(), argv)).toBe(word);
  });

  it("is the word commander's own parser stops at, wherever it finds one", () => {
    for (const [argv, word] of found) {
      if (word === undefined) continue;
      expect(program().parseOptions(argv).operands[0]).toBe(word);
    }
  });
});

describe('a tree built for one command', () => {
  const full = program();
  const fullCatalog = catalogOf(full);

  // __complete is hidden, so not in the catalog; it is registered with `completion`.
  it.each(names(full).filter((n) => n !== '__complete'))('%s: the same command as in the whole tree', (name) => {
    const built = program([name, '--help']);
    const entry = catalogOf(built).commands.find((c) => c.command === name);
    expect(entry).toBeDefined();
    expect(entry).toEqual(fullCatalog.commands.find((c) => c.command === name));
  });

  it('holds only that command, unless the command reads the whole tree', () => {
    expect(names(program(['-q', 'policies', 'get', 'rlp_1']))).toEqual(['policies']);
    expect(names(program(['emulator']))).toEqual(['emulator']);
    expect(names(program(['commands', '--json']))).toEqual(names(full));
    expect(names(program(['completion', 'bash']))).toEqual(names(full));
    expect(names(program(['__complete', 'profiles']))).toEqual(names(full));
    expect(names(program(['polices', 'get']))).toEqual(names(full));
    expect(names(full)).toEqual([
      'profiles',
      'auth',
      'policies',
      'events',
      'provisionings',
      'users',
      'connections',
      'snapshot',
      'diff',
      'api',
      'mcp',
      'emulator',
      'completion',
      '__complete',
      'commands',
    ]);
  });
});
