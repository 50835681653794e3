import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTROL_PREFIX, CONTROL_ROUTES } from '../../src/emulator/control-routes.js';
import { errorCodeTable } from '../../src/error-codes.js';
import { runInScriptTerminal } from '../helpers/script-terminal.js';

// Issue 29 point 10: the README is true and complete, and tests keep it so.

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The lines of the README's section `title` (a `##` or `###` heading), up to the next heading. */
function section(title: string): string[] {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '') === title);
  if (start === -1) throw new Error(`no section '${title}' in the README`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('README, "Error codes"', () => {
  it("lists every code of svcadm's one table (error-codes.ts), and no other", () => {
    const rows = section('Error codes').filter((l) => /^\| `/.test(l));
    const documented = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    // A code added to LOCAL_ERROR_CODES in src/error-codes.ts needs its row here (code, exit, meaning).
    expect([...documented].sort()).toEqual(
      errorCodeTable()
        .map((e) => e.code)
        .sort(),
    );
  });
});

describe('README, "The control API"', () => {
  it("has a row for every route of the emulator's control API, with its body, and no other", () => {
    const rows = section('The control API')
      .filter((l) => l.startsWith('| `'))
      .map((row) => row.split('|').map((cell) => cell.trim()));
    const routes = CONTROL_ROUTES.map((r) => [
      `\`${r.method} ${CONTROL_PREFIX}${r.path === '/' ? '' : r.path}\``,
      r.body === '-' ? '' : `\`${r.body}\``,
    ]);
    expect(rows.map((cells) => cells.slice(1, 3))).toEqual(routes);
  });
});

/**
 * What a terminal shows of `text`: carriage returns and erased lines (`ESC[2K`) applied, the other escape sequences
 * (colour) left out, as a captured pane shows it.
 */
function screen(text: string): string {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    let line: string[] = [];
    let col = 0;
    for (const part of raw.split(/(\x1b\[[0-9;?]*[A-Za-z]|\r)/)) {
      if (part === '\r') col = 0;
      else if (part === '\x1b[2K') line = [];
      else if (part.startsWith('\x1b[')) continue;
      else
        for (const ch of part) {
          line[col] = ch;
          col++;
        }
    }
    out.push(Array.from(line, (ch) => ch ?? ' ').join(''));
  }
  return out.join('\n');
}

/** The output in blocks, each from a `$ svcadm …` line to the first blank line. */
function blocks(text: string): string[] {
  return text
    .split(/\n(?=\$ svcadm )/)
    .filter((b) => b.startsWith('$ svcadm '))
    .map((b) => (b.split('\n\n')[0] ?? '').trimEnd());
}

/** The time the README's sample was taken at: `npm run demo` with SVCADM_TEST_NOW set to it prints the sample. */
const SAMPLE_TIME = '2026-11-24T12:00:00Z';

describe('README, the sample of `npm run demo`', () => {
  it('is what the demo prints on a terminal 100 columns wide (at the sample time), whatever the shell exported', async () => {
    // Fails with what is missing rather than skipping: util-linux's script makes the pseudo-terminal.
    if (!existsSync('/usr/bin/script')) throw new Error('script is not installed: apt-get install -y bsdutils');
    if (!existsSync(join(ROOT, 'dist', 'emulator', 'server.js'))) throw new Error('run npm run build first');
    const intro = README.indexOf('Part of what `npm run demo` shows');
    const fence = README.indexOf('```text\n', intro);
    const sample = README.slice(fence + '```text\n'.length, README.indexOf('\n```', fence));
    // stdin not a terminal: the demo skips its closing 60-second live view.
    const output = await runInScriptTerminal(
      `stty rows 50 cols 100; cd '${ROOT}'; exec node scripts/demo.js </dev/null`,
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TERM: 'xterm-256color',
        NO_COLOR: '1',
        SVCADM_TEST_NOW: SAMPLE_TIME,
        // Left by the README's emulator `eval`: the demo runs on its own profile all the same.
        SVCADM_DOMAIN: 'http://127.0.0.1:9',
        SVCADM_CLIENT_ID: 'left-in-the-shell',
        SVCADM_CLIENT_SECRET: 'left-in-the-shell',
      },
    );
    expect(output.code).toBe(0);
    const shown = new Map(blocks(screen(output.text)).map((b) => [b.split('\n')[0], b]));
    const expected = blocks(sample);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    for (const block of expected) expect(shown.get(block.split('\n')[0])).toBe(block);
  }, 60_000);
});
