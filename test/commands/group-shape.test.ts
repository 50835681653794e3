import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { quietProgram } from '../helpers/program.js';

// The recipe of docs/adding-a-command.md holds for every command group (src/commands/<group>/): options.ts the pure
// parsing, register.ts the tree, run.ts the run code loaded by the root command table
// (docs/decisions/2026-11-25-one-shape-per-command-group.md, 2026-11-28-group-shape-held-by-a-test.md). Each test
// lists what breaks it; none is expected.

const SRC = join(import.meta.dirname, '..', '..', 'src');
const COMMANDS = join(SRC, 'commands');

/** Every folder of src/commands/ but shared/, which holds what several groups parse alike. */
const GROUPS = readdirSync(COMMANDS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
  .map((entry) => entry.name)
  .sort();

const source = (path: string) => readFileSync(join(SRC, path), 'utf8');
const has = (group: string, file: string) => existsSync(join(COMMANDS, group, file));

interface Import {
  readonly from: string;
  readonly typeOnly: boolean;
}

/** A module's imports, static (`import type` told apart) and lazy. */
function importsOf(path: string): Import[] {
  const text = source(path);
  const found: Import[] = [];
  for (const [, type, from] of text.matchAll(/^import (type )?[^;]*? from '([^']+)';/gms)) {
    found.push({ from: from ?? '', typeOnly: type !== undefined });
  }
  for (const [, from] of text.matchAll(/\bimport\('([^']+)'\)/g)) found.push({ from: from ?? '', typeOnly: false });
  return found;
}

interface TableLine {
  readonly names: string[];
  readonly register: string;
  readonly folder: string;
}

/** The lines of the root command table (src/program.ts): the root's commands, how they are registered and loaded. */
function commandTable(): TableLine[] {
  const lines = source('program.ts').matchAll(
    /group\(\[([^\]]*)\], (\w+), \(\) => import\('\.\/commands\/([\w-]+)\/run\.js'\)/g,
  );
  return [...lines].map(([, names = '', register = '', folder = '']) => ({
    names: [...names.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? ''),
    register,
    folder,
  }));
}

/** A command and every command below it. */
function walk(command: Command): Command[] {
  return [command, ...command.commands.flatMap(walk)];
}

describe('every command group', () => {
  it('is a folder with register.ts and run.ts, and one line of the root command table', () => {
    const table = commandTable();
    const program = source('program.ts');
    const wrong: string[] = [];
    for (const group of GROUPS) {
      for (const file of ['register.ts', 'run.ts']) if (!has(group, file)) wrong.push(`${group}: no ${file}`);
      const lines = table.filter((line) => line.folder === group);
      if (lines.length !== 1) wrong.push(`${group}: ${lines.length} lines of the root command table load its run.ts`);
      for (const { register } of lines) {
        const imported = new RegExp(
          `^import \\{[^}]*\\b${register}\\b[^}]*\\} from './commands/${group}/register\\.js';`,
          'm',
        );
        if (!imported.test(program))
          wrong.push(`${group}: program.ts registers it with ${register}, not from its register.ts`);
      }
    }
    for (const line of table)
      if (!GROUPS.includes(line.folder)) wrong.push(`program.ts: no folder commands/${line.folder}/`);
    expect(wrong).toEqual([]);
    expect(table.length).toBeGreaterThan(10);
  });

  it('whose commands take options with a value parses them in an options module; an options.ts is used', () => {
    const tree = quietProgram();
    const wrong: string[] = [];
    for (const { names, folder } of commandTable()) {
      const commands = tree.commands.filter((c) => names.includes(c.name())).flatMap(walk);
      const valued = commands.flatMap((c) => c.options.filter((o) => o.required || o.optional).map((o) => o.long));
      const registerImports = importsOf(`commands/${folder}/register.ts`);
      if (valued.length > 0 && !registerImports.some((i) => /(^|\/)options\.js$/.test(i.from))) {
        wrong.push(`${folder}: its commands take ${valued.join(', ')}, parsed by no options.ts`);
      }
      if (has(folder, 'options.ts') && !registerImports.some((i) => i.from === './options.js')) {
        wrong.push(`${folder}: register.ts does not use its options.ts`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps options.ts pure: no commander, no files or network, no run code', () => {
    const impure =
      /^(commander|node:(fs|fs\/promises|http|https|net|tls|child_process)|.*\/cli\/(commander|command|host)\.js|\.\/run\.js)$/;
    const wrong = GROUPS.filter((group) => has(group, 'options.ts')).flatMap((group) =>
      importsOf(`commands/${group}/options.ts`)
        .filter((i) => impure.test(i.from))
        .map((i) => `${group}/options.ts imports ${i.from}`),
    );
    expect(wrong).toEqual([]);
  });

  it('has its run.ts loaded by the root command table alone (elsewhere imported for its types only)', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    const wrong: string[] = [];
    for (const file of files) {
      if (file === 'program.ts') continue;
      for (const i of importsOf(file)) {
        const target = relative(SRC, join(SRC, file, '..', i.from));
        if (!i.typeOnly && /^commands\/[\w-]+\/run\.js$/.test(target)) wrong.push(`${file} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
