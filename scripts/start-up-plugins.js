// esbuild plugins that shape dist/ for start-up: what `svcadm policies get` loads before its request is one chunk,
// and Node's built-ins are reached without the ESM loader. Both are kept because the start-up figure needs them
// (docs/decisions/2026-11-25-start-up-tricks.md).
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * One chunk for all that src/main.ts reaches. esbuild puts a module in a chunk of its own for each set of entry
 * points that reach it, and every dynamic `import()` is an entry point: main.js's code was spread over a dozen
 * files, and on Node 20 each ESM file costs more than its bytes. Every other entry (each module our code imports
 * lazily, which runs beside main.ts anyway; the emulator is built apart, scripts/build.js) is made to import
 * src/main.ts too: all that main.ts reaches is then reached from every entry alike, and is one chunk.
 *
 * Why: `policies get -o json` takes 17 ms (CPU) more without it: 1.65x a bare node:http GET instead of 1.42x
 * (bound 1.5x; medians of same-run benches). What it asks of src/: a lazily loaded module is read by name
 * (`const { x } = await import(…)`), as `export *` keeps named exports only; biome's style/noDefaultExport holds
 * src/ to that.
 */
export function oneMainChunk(root) {
  const src = join(root, 'src');
  const mainSource = join(src, 'main.ts');
  const ALONGSIDE = 'alongside-main';
  return {
    name: 'one-main-chunk',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        const ours = args.kind === 'entry-point' || (args.kind === 'dynamic-import' && args.importer.startsWith(src));
        if (!ours || args.pluginData === ALONGSIDE) return undefined;
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: ALONGSIDE,
        });
        if (found.errors.length > 0) return undefined;
        if (found.external || found.namespace !== 'file' || found.path === mainSource) return found;
        return { path: found.path, namespace: ALONGSIDE };
      });
      b.onLoad({ filter: /.*/, namespace: ALONGSIDE }, (args) => ({
        contents: `import ${JSON.stringify(mainSource)};\nexport * from ${JSON.stringify(args.path)};\n`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * Why: `policies get -o json` takes 2.8 ms (CPU) more without it, about 0.03x of the floor, and the figure is not
 * comfortably under its 1.5x bound even with it.
 *
 * Node's built-ins through `process.getBuiltinModule`, not `import`: each imported built-in costs the ESM loader a
 * facade that reads every export, getters included (node:process then loads its report module, node:crypto its
 * webcrypto, and a newer Node warns about deprecated ones such as `fs.F_OK`). An `import` gets a module of one
 * binding per export (names from the built-in of the Node that builds), each read once at load by a pure call, so
 * that esbuild drops the ones nobody imports and the code calls the function itself (`readFileSync(…)`): esbuild's
 * CommonJS interop gave every importing module a copy of the whole export list as getters (about 1 ms of start-up
 * for 24 imports). A bundled CommonJS `require` still gets the module object as it is; a dynamic `import('node:…')`
 * is left to Node.
 */
export const builtinsWithoutImport = {
  name: 'builtins-without-import',
  setup(b) {
    const names = new RegExp(`^(node:)?(${builtinModules.join('|').replaceAll('/', '\\/')})$`);
    b.onResolve({ filter: names }, (args) => {
      // A library's `import('http')` (OpenTelemetry's exporter makes its agent so) is bundled as the built-in's
      // module, loaded on that first import: inside the executable nothing may be imported lazily. svcadm's own
      // `import('node:…')` stays Node's. A namespace of its own: shared with the static imports of the same
      // built-in, it made esbuild wrap every built-in of the start-up chunk in a lazy initialiser and load two more
      // chunks at every start.
      if (args.kind === 'dynamic-import')
        return args.path.startsWith('node:') ? undefined : { path: `node:${args.path}`, namespace: 'builtin-dynamic' };
      const path = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      if (args.kind !== 'import-statement') return { path, namespace: 'builtin' };
      // Each library's imports get modules of their own (`node:path#env-paths`): a library bundled as CommonJS that
      // requires one of its ES modules makes esbuild wrap that module's imports in lazy initialisers, and shared,
      // those of svcadm's start-up chunk with them (OpenTelemetry did so to node:fs, node:path and node:stream).
      const library = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(args.importer)?.[1];
      if (library === undefined) return { path, namespace: 'builtin-import' };
      return { path: `${path}#${library.replace(/\\/g, '/')}`, namespace: 'builtin-library' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});\n`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-import' }, (args) => ({
      contents: builtinBindings(args.path),
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-library' }, (args) => ({
      contents: builtinBindings(args.path.slice(0, args.path.indexOf('#'))),
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-dynamic' }, (args) => ({
      contents: builtinBindings(args.path),
      loader: 'js',
    }));
  },
};

const IDENTIFIER = /^[A-Za-z_][\w]*$/;

function builtinBindings(specifier) {
  // No export of a built-in has a `$` in its name: the locals `$builtin`, `$read` and `name$` take none of theirs.
  const exported = Object.keys(createRequire(import.meta.url)(specifier)).filter(
    (name) => IDENTIFIER.test(name) && name !== 'default',
  );
  return [
    `const $builtin = /* @__PURE__ */ process.getBuiltinModule(${JSON.stringify(specifier)});`,
    'const $read = (name) => $builtin[name];',
    'export default $builtin;',
    ...exported.map((name) => `const ${name}$ = /* @__PURE__ */ $read(${JSON.stringify(name)});`),
    `export { ${exported.map((name) => `${name}$ as ${name}`).join(', ')} };`,
    '',
  ].join('\n');
}
