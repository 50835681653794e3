// The single executable's program: this file and all of src/ in one ES module, the executable's main script
// (scripts/release/executable.js). `--version` alone is answered before anything else runs, as bin/svcadm.js does;
// a `--debug` run maps its stack traces to src/ with the source map the executable carries.
import { main } from '../../src/main.ts';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${SVCADM_VERSION}\n`);
} else {
  if (args.includes('--debug')) mapStackTraces();
  process.exitCode = await main(args);
}

/**
 * Stack traces that name src/ files and lines: Node maps only the modules it compiled with source maps on, and it
 * compiles the executable's main script before any code runs, so the frames of this script are mapped here, from
 * the `program.js.map` asset.
 */
function mapStackTraces() {
  const { getRawAsset } = process.getBuiltinModule('node:sea');
  const { SourceMap } = process.getBuiltinModule('node:module');
  const map = new SourceMap(JSON.parse(Buffer.from(getRawAsset('program.js.map')).toString('utf8')));
  const own = import.meta.url;
  Error.prepareStackTrace = (error, frames) => {
    const lines = frames.map((frame) => {
      const file = frame.getFileName();
      const line = frame.getLineNumber();
      const column = frame.getColumnNumber();
      if ((file === own || file === process.execPath) && line !== null && column !== null) {
        const entry = map.findEntry(line - 1, column - 1);
        if (entry && 'originalSource' in entry) {
          const name = frame.getFunctionName() ?? '<anonymous>';
          return `    at ${name} (${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1})`;
        }
      }
      return `    at ${frame}`;
    });
    return [`${error}`, ...lines].join('\n');
  };
}
