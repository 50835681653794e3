// esbuild plugins that both bundles share: dist/ for npm (scripts/build.js) and the single executable's program
// (scripts/release/executable.js).
import { join } from 'node:path';

/**
 * Ink connects to React's devtools when DEV=true: that module (and react-devtools-core, not installed) is left out
 * of the bundle, so a user's DEV variable cannot make the live view load a websocket client or a missing module.
 */
export const noInkDevtools = {
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
