import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { requireProgram } from '../helpers/requires.js';
import { BIN, tempConfigDir } from '../helpers/run-cli.js';
import { openTerminal } from '../helpers/tmux.js';

const tmux = requireProgram('tmux');

it.skipIf(tmux.missing)(
  tmux.title('NO_COLOR wins over FORCE_COLOR without Node warning about it, on a terminal (the real binary)'),
  async () => {
    // conf (gone) loaded node:assert, and so Node's colour checks, on this path; nothing does today. The test keeps a
    // dependency that does from bringing the warning back unnoticed should main's settling of the two go.
    const dir = tempConfigDir();
    const profile = { domain: 'https://a.example.com', clientId: 'x', clientSecret: 'y' };
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({ current: 'a', profiles: { a: profile, b: profile } }));
    const terminal = await openTerminal([process.execPath, BIN, 'profiles', 'use', 'b'], {
      columns: 100,
      rows: 10,
      env: { NO_COLOR: '1', FORCE_COLOR: '1', SVCADM_CONFIG_DIR: dir },
    });
    try {
      expect(await terminal.exited()).toBe(0);
      expect(await terminal.screen()).toBe("Now using profile 'b'.");
    } finally {
      await terminal.close();
    }
  },
);
