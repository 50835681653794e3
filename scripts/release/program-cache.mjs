// Run by the pinned Node with --experimental-vm-modules: `<program.mjs> <cache out>`. The code cache of the
// executable's program, compiled as executable-entry.cjs compiles it (a SourceTextModule of the same text; V8 checks
// the text and its own flags, not the module's name). Node cannot make one after the module ran, so it holds what
// V8 compiles up front.
import { readFileSync, writeFileSync } from 'node:fs';
import { SourceTextModule } from 'node:vm';

const [programFile, cacheFile] = process.argv.slice(2);
const program = new SourceTextModule(readFileSync(programFile, 'utf8'), { identifier: 'file:///svcadm' });
writeFileSync(cacheFile, program.createCachedData());
