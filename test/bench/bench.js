// `npm run bench`: every benchmark section, each measured against a baseline taken in the same run.
import './clean-env.js';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SECTIONS = [
  'startup.js',
  'emulator-throughput.js',
  'pagination.js',
  'events.js',
  'forward.js',
  'untrusted.js',
  'tenants.js',
  'compare.js',
];
const only = process.argv.slice(2);

function format(row) {
  if (row && typeof row === 'object' && 'name' in row && 'ratio' in row) {
    const unit = row.unit ?? 'ms';
    const base = row.baseline === undefined ? '' : ` vs ${Number(row.baseline).toFixed(1)} ${unit}`;
    const verdict = row.ok === undefined ? '' : row.ok ? '  ok' : '  MISSED';
    return `${row.name}: ${Number(row.measured).toFixed(1)} ${unit}${base} = ${Number(row.ratio).toFixed(2)}x (target ${row.target})${verdict}`;
  }
  return typeof row === 'string' ? row : JSON.stringify(row);
}

let missed = 0;
for (const file of SECTIONS) {
  if (only.length && !only.some((o) => file.startsWith(o))) continue;
  const path = join(here, file);
  if (!existsSync(path)) continue;
  console.log(`\n== ${file.replace(/\.js$/, '')}`);
  const mod = await import(path);
  const result = await mod.run();
  for (const row of Array.isArray(result) ? result : [result]) {
    if (row && typeof row === 'object' && row.ok === false) missed++;
    console.log(format(row));
  }
}
console.log(missed ? `\n${missed} target(s) missed` : '\nall targets met');
