// Bundles src/ and its libraries into dist/ with esbuild: the CLI's entry and its lazily loaded chunks (table and live
// views, --query's JMESPath, YAML, the private-key signer, the completion generator), then the emulator's entry, built
// apart. Fewer, smaller files to load halve the start-up cost (README, docs/decisions/2026-11-22-esbuild-bundle.md).
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inkWithoutDevtools } from './bundle-plugins.js';
import { builtinsWithoutImport, oneMainChunk } from './start-up-plugins.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Some bundled CommonJS modules call require() for Node's built-ins; ESM output has no require of its own.
const requireShim = "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";
/** Where the emulator's entry is built, and how the CLI's chunks (all in dist/chunks/) import it. */
const EMULATOR_ENTRY = { in: 'src/emulator/server.ts', out: 'emulator/server' };
const EMULATOR_FROM_A_CHUNK = '../emulator/server.js';
/**
 * The emulator's entry is left out of the CLI's build: the emulator command imports the file the second build makes,
 * so that the entry, and the process that serves an emulator, load none of the CLI's chunks
 * (docs/decisions/2026-11-28-emulator-built-apart.md).
 */
const emulatorBuiltApart = {
  name: 'emulator-built-apart',
  setup(b) {
    b.onResolve({ filter: /\/emulator\/server\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path) === join(root, EMULATOR_ENTRY.in.replace(/\.ts$/, '.js'))
        ? { path: EMULATOR_FROM_A_CHUNK, external: true }
        : undefined,
    );
  },
};
/** What both builds share. */
const common = {
  absWorkingDir: root,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    // The one runtime dependency (the brief): loaded from node_modules, not bundled. Bundling it would save about
    // 10 ms of start-up on Node 20 (docs/decisions/2026-11-24-commander-from-node-modules.md).
    'commander',
    // A native binding (prebuilt per platform, an optional dependency): never bundled, and only ever loaded by the
    // child process that makes one keyring call (src/config/secret-store.ts).
    '@napi-rs/keyring',
    // https-proxy-agent imports it only for Negotiate (Kerberos) proxy authentication, which svcadm never asks for.
    'kerberos',
  ],
  banner: { js: requireShim },
  // Each file names its map (`//# sourceMappingURL=`); Node reads the maps only when a `--debug` run turns them on
  // (bin/svcadm.js), so that a stack trace names src/ files and lines. Without the sources' text: a trace needs the
  // mappings alone, and the package stays small (docs/decisions/2026-11-25-source-maps.md).
  sourcemap: 'linked',
  sourcesContent: false,
  chunkNames: 'chunks/[name]-[hash]',
  define: { SVCADM_VERSION: JSON.stringify(version), 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
};
rmSync(join(root, 'dist'), { recursive: true, force: true });
const cli = await build({
  ...common,
  entryPoints: [{ in: 'src/main.ts', out: 'main' }],
  splitting: true,
  metafile: true,
  plugins: [inkWithoutDevtools, emulatorBuiltApart, oneMainChunk(root), builtinsWithoutImport],
});
// The import of the emulator's entry is written for a file of dist/chunks/: one elsewhere would miss it.
for (const [file, output] of Object.entries(cli.metafile.outputs)) {
  if (output.imports.some((i) => i.external && i.path === EMULATOR_FROM_A_CHUNK) && !file.startsWith('dist/chunks/')) {
    throw new Error(`${file} imports the emulator's entry as ${EMULATOR_FROM_A_CHUNK}, which is not where it is`);
  }
}
// One file: the emulator imports nothing lazily, and shares no chunk with the CLI.
await build({ ...common, entryPoints: [EMULATOR_ENTRY], splitting: false, plugins: [builtinsWithoutImport] });
