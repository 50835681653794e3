import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireProgram } from '../helpers/requires.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGE = join(ROOT, 'man', 'svcadm.1');
const groff = requireProgram('groff');

describe('man/svcadm.1', () => {
  it('is current: generated again from the built command tree, it is the committed page', () => {
    const generated = execFileSync(process.execPath, [join(ROOT, 'scripts', 'man.js'), '--stdout'], {
      encoding: 'utf8',
    });
    expect(generated === readFileSync(PAGE, 'utf8'), 'man/svcadm.1 is stale: run `npm run man`').toBe(true);
  });

  it('names every command, every option, every exit status and the proxy variables', async () => {
    const page = readFileSync(PAGE, 'utf8').replace(/\\-/g, '-');
    const catalog = JSON.parse((await runCli(['commands', '--json'])).stdout) as {
      global_options: { flags: string }[];
      exit_codes: { code: number }[];
      commands: Command[];
    };
    interface Command {
      command: string;
      options: { flags: string }[];
      commands: Command[];
    }
    const all = (cs: Command[]): Command[] => cs.flatMap((c) => [c, ...all(c.commands)]);
    const missing = [
      ...catalog.global_options.map((o) => `.B ${o.flags}`),
      ...all(catalog.commands).flatMap((c) => [
        ...(c.commands.length ? [] : [`.SS svcadm ${c.command}`]),
        ...c.options.map((o) => `.B ${o.flags}`),
      ]),
      ...catalog.exit_codes.map((e) => `.B ${e.code}`),
      ...['HTTPS_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS', 'SVCADM_CONFIG_DIR'].map((v) => `.B ${v}`),
    ].filter((line) => !page.split('\n').includes(line));
    expect(missing).toEqual([]);
  });

  it('says each default once: "(default 5)", never "(default 5) (default: 5)"', () => {
    const page = readFileSync(PAGE, 'utf8').replace(/\\-/g, '-');
    const twice = page.split('\n').filter((line) => (line.match(/\bdefault\b/g) ?? []).length > 1);
    expect(twice).toEqual([]);
    expect(page).toContain('\nretries for 429, 5xx and network failures (default 5)\n');
    expect(page).toContain('\nper-request time limit (default 30s)\n');
  });

  it.skipIf(groff.missing)(groff.title('renders without a warning (groff -man -ww)'), () => {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', PAGE], { encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
