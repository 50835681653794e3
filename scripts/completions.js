// Regenerates completions/ from the built CLI (`npm run completions` builds first).
// A test compares these files with `svcadm completion <shell>`, so they cannot go stale unnoticed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = { bash: 'svcadm.bash', zsh: '_svcadm', fish: 'svcadm.fish' };
mkdirSync(join(root, 'completions'), { recursive: true });
for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, [join(root, 'bin', 'svcadm.js'), 'completion', shell], {
    encoding: 'utf8',
  });
  writeFileSync(join(root, 'completions', file), script);
  process.stdout.write(`completions/${file}\n`);
}
