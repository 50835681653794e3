// Bundles src/ into dist/ with esbuild: one entry for the CLI, one for the emulator, and lazily loaded chunks
// (Ink views, the emulator, conf). One file to load instead of dozens halves the start-up cost (README, design notes).
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts', 'src/emulator/server.ts'],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  jsx: 'automatic',
  chunkNames: 'chunks/[name]-[hash]',
  define: { SVCADM_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
