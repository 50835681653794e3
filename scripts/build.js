// Bundles src/ and its libraries into dist/ with esbuild: one entry for the CLI, one for the emulator, and lazily
// loaded chunks (table and live views, --query's JMESPath, YAML, the private-key signer, the completion generator). Fewer, smaller
// files to load halve the start-up cost (README, docs/decisions/2026-11-22-esbuild-bundle.md).
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { builtinsWithoutImport, oneMainChunk } from './start-up-plugins.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Some bundled CommonJS modules call require() for Node's built-ins; ESM output has no require of its own.
const requireShim = "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);";
// Ink connects to React's devtools when DEV=true: that module (and react-devtools-core, not installed) is left out
// of the bundle, so a user's DEV variable cannot make the live view load a websocket client or a missing module.
const noInkDevtools = {
  name: 'no-ink-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'ink')}`)
        ? { path: 'ink-devtools', namespace: 'empty' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [
    { in: 'src/main.ts', out: 'main' },
    { in: 'src/emulator/server.ts', out: 'emulator/server' },
  ],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
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
  plugins: [noInkDevtools, oneMainChunk(root), builtinsWithoutImport],
  logLevel: 'warning',
});
