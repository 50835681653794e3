// Builds svcadm's single executable for this machine's platform with the pinned Node 26's `node --build-sea`
// (docs/decisions/2026-11-28-single-executable.md). Run alone: `node scripts/release/executable.js <outFile>`.
//
// What goes in: the Node binary with its debug information stripped; a tiny main script (executable-entry.cjs) that
// answers `--version` itself and otherwise compiles the program (executable-entry.js and src/, one ES module, an
// asset) with the code cache made here; the program's source map (read by a `--debug` run alone); the keyring's
// native addon and its SHA-256. Two builds of one commit differ at most in the code caches
// (test/packaging/executable-build.test.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inkWithoutDevtools } from '../bundle-plugins.js';
import { builtinsWithoutImport } from '../start-up-plugins.js';
import { NODE_VERSION } from './node-version.js';

const here = dirname(fileURLToPath(import.meta.url));
/** What the program leaves to Node at run time: the keyring binding (loaded by path in its child) and kerberos. */
const EXTERNAL = ['@napi-rs/keyring', 'kerberos'];

/**
 * The pinned Node, fetched once as the `node` package on npm (as .ci/run fetches Node 22 and 24) into
 * `release/.cache/` (never committed), and a copy of its binary with the debug information stripped.
 */
export function pinnedNode(root, version = NODE_VERSION) {
  const prefix = join(root, 'release', '.cache', `node-${version}`);
  const binary = join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(binary)) {
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const reported = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (reported !== `v${version}`) throw new Error(`${binary} is ${reported}, not v${version}`);
  const stripped = join(prefix, 'node-stripped');
  if (!existsSync(stripped)) {
    copyFileSync(binary, `${stripped}.tmp`);
    // Linux: `strip` drops the symbols and the debug sections (149.7 MB → 116.4 MB for Node 26.10.0) and keeps the
    // dynamic symbols a native addon links against; Node's SEA fuse is a string in .rodata and stays. macOS and
    // Windows binaries are signed: there the builder would remove the signature first, which is not done here.
    if (process.platform === 'linux') execFileSync('strip', ['--strip-all', `${stripped}.tmp`]);
    renameSync(`${stripped}.tmp`, stripped);
  }
  return { binary, stripped };
}

/** src/cli/commander.ts loads commander from node_modules; inside the executable it is bundled: the same module. */
function commanderBundled(root) {
  const source = join(root, 'src', 'cli', 'commander.ts');
  return {
    name: 'commander-bundled',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]commander\.ts$/ }, (args) =>
        args.path === source
          ? {
              contents:
                "import * as commander from 'commander';\nexport const { Argument, Command, CommanderError, Help, Option } = commander;\n",
              loader: 'ts',
              resolveDir: dirname(source),
            }
          : undefined,
      );
    },
  };
}

/**
 * The program: executable-entry.js and all of src/ in one ES module, commander included. No chunks: `import()` of a
 * file fails inside the executable, so each lazily loaded part (the live view, MCP, --query, YAML, the signer, the
 * proxy agent) is a lazily initialised module of this one file
 * (docs/decisions/2026-11-28-lazy-code-in-the-executable.md).
 */
export async function bundleProgram(root, version, dir) {
  const outfile = join(dir, 'program.mjs');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [join(here, 'executable-entry.js')],
    outfile,
    bundle: true,
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node26',
    external: EXTERNAL,
    // Some bundled CommonJS modules call require() for Node's built-ins; ESM output has no require of its own.
    banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
    plugins: [inkWithoutDevtools, builtinsWithoutImport, commanderBundled(root)],
    // The map is an asset of its own, read by a --debug run alone; its sources are named from the repository's root.
    sourcemap: 'external',
    sourcesContent: false,
    define: { SVCADM_VERSION: JSON.stringify(version), 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
  });
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    for (const i of output.imports) {
      const builtin = i.path.startsWith('node:');
      if (i.external && !builtin && !EXTERNAL.includes(i.path)) throw new Error(`${file} imports ${i.path}`);
      if (i.kind === 'dynamic-import' && !builtin && !EXTERNAL.includes(i.path))
        throw new Error(`${file} imports ${i.path} lazily, which fails inside`);
    }
  }
  const map = JSON.parse(readFileSync(`${outfile}.map`, 'utf8'));
  // A file's path from the repository's root; a module the plugins make up (`builtin-import:node:util`) by its name.
  map.sources = map.sources.map((source) => {
    const path = resolve(dir, source);
    return path.startsWith(`${dir}/`) ? relative(dir, path) : relative(root, path);
  });
  writeFileSync(`${outfile}.map`, JSON.stringify(map));
  writeFileSync(outfile, readFileSync(outfile, 'utf8').replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n'));
  return outfile;
}

/** The keyring addon of this platform from node_modules; its SHA-256 written to the build folder (both embedded). */
function keyringAddon(root, dir) {
  const platform = `${process.platform}-${process.arch}`;
  const variant = process.platform === 'linux' ? `${platform}-gnu` : platform;
  const addon = join(root, 'node_modules', '@napi-rs', `keyring-${variant}`, `keyring.${variant}.node`);
  if (!existsSync(addon)) throw new Error(`the keyring addon ${addon} is missing: run npm ci`);
  writeFileSync(
    join(dir, 'keyring.node.sha256'),
    `${createHash('sha256').update(readFileSync(addon)).digest('hex')}\n`,
  );
  return addon;
}

/**
 * Builds the single executable at `outFile` for this machine's platform from the pinned Node.
 *
 * @param {{ root: string, version: string, outFile: string, codeCache?: boolean }} options `codeCache: false`
 *   leaves the code cache out (two such builds of one commit are byte for byte the same)
 * @returns {Promise<{ nodeVersion: string, sizeBytes: number }>}
 */
export async function buildExecutable({ root, version, outFile, codeCache = true }) {
  const { stripped } = pinnedNode(root);
  // src/generated/ (the tail's WebAssembly module) is built, not committed; skipped when it is up to date.
  execFileSync(process.execPath, [join(root, 'scripts', 'build-wasm.js')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-executable-'));
  try {
    await bundleProgram(root, version, dir);
    if (codeCache) {
      const made = ['--experimental-vm-modules', '--no-warnings', join(here, 'program-cache.mjs'), 'program.mjs'];
      execFileSync(stripped, [...made, 'program.mjs.cache'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    writeFileSync(
      join(dir, 'entry.cjs'),
      readFileSync(join(here, 'executable-entry.cjs'), 'utf8').replace("'@SVCADM_VERSION@'", JSON.stringify(version)),
    );
    const addon = keyringAddon(root, dir);
    mkdirSync(dirname(resolve(outFile)), { recursive: true });
    const config = join(dir, 'sea-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        // Named from the build folder, the working directory of --build-sea: the blob records the names, and two
        // builds in two temporary folders would differ by them.
        main: 'entry.cjs',
        mainFormat: 'commonjs',
        executable: stripped,
        output: join(dir, 'svcadm'),
        disableExperimentalSEAWarning: true,
        // Node's own code cache would hold entry.cjs alone, a few lines; the program's is made above. V8's caches
        // differ from build to build, so the one there is comes last in the blob (assets are in the order of their
        // names), and two builds differ only from there on.
        useCodeCache: false,
        // The program is a vm.SourceTextModule (executable-entry.cjs), which needs this flag; Node's warning that it
        // is experimental is not svcadm's to print. NODE_OPTIONS does not reach the executable: it is a program,
        // not a Node a user configures.
        execArgv: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
        execArgvExtension: 'none',
        assets: {
          'program.mjs': 'program.mjs',
          ...(codeCache ? { 'program.mjs.cache': 'program.mjs.cache' } : {}),
          'program.js.map': 'program.mjs.map',
          'keyring.node': addon,
          'keyring.node.sha256': 'keyring.node.sha256',
        },
      }),
    );
    // --build-sea is run by the pinned Node itself: the blob and the binary must be the same version.
    execFileSync(stripped, ['--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'], cwd: dir });
    // Moved into place whole: a running copy of an earlier build (a background emulator) keeps its own file.
    copyFileSync(join(dir, 'svcadm'), `${outFile}.partial`);
    renameSync(`${outFile}.partial`, outFile);
    return { nodeVersion: NODE_VERSION, sizeBytes: statSync(outFile).size };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outFile = process.argv[2];
  if (!outFile) {
    process.stderr.write('usage: node scripts/release/executable.js <outFile>\n');
    process.exit(2);
  }
  const root = join(here, '..', '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const built = await buildExecutable({ root, version, outFile });
  process.stdout.write(
    `${outFile}: svcadm ${version}, Node ${built.nodeVersion}, ${(built.sizeBytes / 1e6).toFixed(1)} MB\n`,
  );
}
