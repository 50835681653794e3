import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireProgram } from '../helpers/requires.js';
import { openTerminal } from '../helpers/tmux.js';

// Issue 38 point 14: on a terminal the demo ends with its live view, whose resume line names the demo's profile on
// the demo's emulator; the demo then removes both. Its last words must stay true after that.

const ROOT = join(import.meta.dirname, '..', '..');
const tmux = requireProgram('tmux');

describe.skipIf(tmux.missing)(tmux.title('npm run demo on a terminal, to its end'), () => {
  it.each([
    ['q', 'q'],
    ['Ctrl-C', 'C-c'],
  ])(
    '%s: says, after the resume line, that the emulator and profile it names are gone',
    async (_name, key) => {
      if (!existsSync(join(ROOT, 'dist', 'emulator', 'server.js'))) throw new Error('run npm run build first');
      const terminal = await openTerminal([process.execPath, join(ROOT, 'scripts', 'demo.js')], {
        columns: 160,
        rows: 20,
        env: { NO_COLOR: '1' },
      });
      try {
        await terminal.waitFor((screen) => screen.includes('The live view takes keys'), 60_000);
        await terminal.waitFor((screen) => screen.includes('● connected'), 20_000);
        await terminal.keys(key);
        expect(await terminal.exited()).toBe(0);
        const lines = (await terminal.history()).split('\n');
        const resume = lines.findIndex((line) => line.startsWith('resume with: svcadm -p demo events tail --from '));
        expect(resume).toBeGreaterThan(0);
        expect(lines.slice(resume + 1)).toEqual([
          '',
          "Done: the demo's emulator has stopped and its profile is removed.",
          'The resume line above named them: it no longer works.',
          'Try it yourself: npx svcadm emulator (or npm link, then svcadm emulator)',
        ]);
      } finally {
        await terminal.close();
      }
    },
    90_000,
  );
});
