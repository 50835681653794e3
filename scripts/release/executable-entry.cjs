'use strict';
// The single executable's main script, kept tiny: it answers `--version` alone without compiling the program, as
// bin/svcadm.js does, else it compiles the program (executable-entry.js and src/, one ES module, an embedded asset)
// with the code cache the build made for it, and runs it. A `vm.SourceTextModule`: an ES module, as the lazy parts
// need top-level await (Ink's layout engine), that takes a code cache; the executable runs with
// --experimental-vm-modules for it (scripts/release/executable.js; docs/decisions/2026-11-28-executable-start-up.md).
// scripts/release/executable.js writes the version in.
const VERSION = '@SVCADM_VERSION@';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { getAsset, getAssetKeys, getRawAsset } = require('node:sea');
  const { SourceTextModule } = require('node:vm');
  // A build without the code cache (scripts/release/executable.js, codeCache: false) carries none.
  const cached = () =>
    getAssetKeys().includes('program.mjs.cache') ? new Uint8Array(getRawAsset('program.mjs.cache')) : undefined;
  // The program's import.meta.url, and the name its frames carry (mapped to src/ by a --debug run), is the
  // executable's own, as for a main script.
  const url = require('node:url').pathToFileURL(process.execPath).href;
  const program = new SourceTextModule(getAsset('program.mjs', 'utf8'), {
    identifier: url,
    cachedData: cached(),
    initializeImportMeta(meta) {
      meta.url = url;
    },
  });
  // The program imports nothing: every module is in it, Node's built-ins come from process.getBuiltinModule.
  program
    .link((specifier) => {
      throw new Error(`the program imports ${specifier}`);
    })
    .then(() => program.evaluate());
}
