// The single executable's program: this file and all of src/ in one ES module (scripts/release/executable.js),
// compiled and run by the executable's main script, executable-entry.cjs, which answers `--version` itself. A
// `--debug` run maps its stack traces to src/ with the source map the executable carries.
import { main } from '../../src/main.ts';

const args = process.argv.slice(2);
if (args.includes('--debug')) mapStackTraces();
process.exitCode = await main(args);

/**
 * Stack traces that name src/ files and lines: Node maps only the modules it loads itself with source maps on, so
 * the frames of this program are mapped here, from the `program.js.map` asset.
 */
function mapStackTraces() {
  const { getRawAsset } = process.getBuiltinModule('node:sea');
  const { SourceMap } = process.getBuiltinModule('node:module');
  const map = new SourceMap(JSON.parse(Buffer.from(getRawAsset('program.js.map')).toString('utf8')));
  const own = import.meta.url;
  Error.prepareStackTrace = (error, frames) => {
    const lines = frames.map((frame) => {
      const line = frame.getLineNumber();
      const column = frame.getColumnNumber();
      if (frame.getFileName() === own && line !== null && column !== null) {
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
