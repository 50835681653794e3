// esbuild plugins that both bundles share: dist/ for npm (scripts/build.js) and the single executable's program
// (scripts/release/executable.js).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Ink reads DEV (`process.env['DEV'] === 'true'`) to reach for React's developer tools: it then reads its own
// package.json beside the module (dist/ has none: the live view crashed) and imports react-devtools-core (not
// installed). In the bundle the check is false, whatever DEV holds; the user's DEV is left as it is, for the processes
// svcadm starts too. Ink's devtools.js, unreachable then, is left out (esbuild follows an import it cannot reach). A
// new Ink whose check reads otherwise fails the build (docs/decisions/2026-11-28-ink-dev-variable.md).
const INK_DEV_CHECK = "process.env['DEV'] === 'true'";

export const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'ink')}`)
        ? { path: 'ink-devtools', namespace: 'empty' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
    b.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]utils\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(INK_DEV_CHECK)) throw new Error(`${args.path} no longer reads ${INK_DEV_CHECK}`);
      return { contents: source.replace(INK_DEV_CHECK, 'false'), loader: 'js' };
    });
  },
};
