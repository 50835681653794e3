// Rewrites the index table of docs/decisions/README.md from the records themselves (title and Status line).
// `node scripts/decisions-index.js` after adding a record; `--check` exits 1 when the index is out of date.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'docs', 'decisions');
const readme = join(dir, 'README.md');

export function indexRows(folder) {
  return readdirSync(folder)
    .filter((f) => /^\d{4}-\d{2}-\d{2}-.+\.md$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(folder, file), 'utf8');
      const title = /^# (.+)$/m.exec(text)?.[1]?.trim();
      const status = /^Status: (.+)$/m.exec(text)?.[1]?.trim();
      if (!title || !status) throw new Error(`${file}: needs a '# Title' and a 'Status:' line`);
      return `| [\`${file}\`](${file}) | ${title.replace(/\|/g, '\\|')} | ${status} |`;
    });
}

export function withIndex(readmeText, rows) {
  const head = readmeText.slice(0, readmeText.indexOf('## Index'));
  return `${head}## Index\n\n| file | title | status |\n|---|---|---|\n${rows.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = readFileSync(readme, 'utf8');
  const next = withIndex(current, indexRows(dir));
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('docs/decisions/README.md: the index is out of date; run: node scripts/decisions-index.js');
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(readme, next);
  }
}
