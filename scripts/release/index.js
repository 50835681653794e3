// `npm run release`: builds release/ for this machine's target from the committed completions and manual page and
// the single executable (./executable.js): the executable, its .tar.gz, the .deb on Linux, the build info (the Node
// version inside), SHA256SUMS, and, given where the downloads will be, the Homebrew formula and the Scoop manifest
// (docs/decisions/2026-11-28-release-packages.md).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { writeDeb } from './deb.js';
import { homebrewFormula } from './homebrew.js';
import { parseReleaseArgs, ReleaseInputError, sourceDateEpochOf, USAGE } from './inputs.js';
import { scoopManifest } from './scoop.js';
import { writeTarball } from './tarball.js';
import { describeTarget, TARGETS, targetOf } from './targets.js';

const run = promisify(execFile);

/** The SHA-256 of a file, in hexadecimal. */
async function sha256Of(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

/** `Name <email>` from package.json's `author`, else the licence's holders. */
function maintainerOf(author) {
  if (typeof author === 'string' && author.trim()) return author.trim();
  if (author && typeof author === 'object' && author.name) {
    return author.email ? `${author.name} <${author.email}>` : author.name;
  }
  return 'svcadm contributors';
}

/** What the packages say of svcadm, from package.json. */
async function metadataOf(root) {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  return {
    version: pkg.version,
    meta: {
      description: pkg.description,
      license: pkg.license,
      homepage: typeof pkg.homepage === 'string' ? pkg.homepage : undefined,
      maintainer: maintainerOf(pkg.author),
    },
  };
}

/** The programs the release runs, checked before the executable's long build. */
async function requirePrograms(programs) {
  for (const program of programs) {
    try {
      await run(program, ['--version']);
    } catch (error) {
      if (error.code === 'ENOENT')
        throw new ReleaseEnvironmentError(`${program} is not installed: the release runs it`);
      throw error;
    }
  }
}

/** Something missing from the machine: one line, exit 1, not "a bug". */
export class ReleaseEnvironmentError extends Error {}

/**
 * Builds `outDir` (emptied first) for `target`. `buildExecutable({ root, version, outFile })` makes the single
 * executable and answers `{ nodeVersion }`. `checksums` are the other targets' downloads, by target; with no
 * `baseUrl`, the formula and the manifest point at `outDir` (`file://`). `log` takes the notes for stderr. Answers the files
 * written, in order.
 */
export async function release({
  root,
  outDir,
  target,
  sourceDateEpoch,
  commit,
  baseUrl,
  checksums = {},
  buildExecutable,
  log = () => {},
}) {
  const { version, meta } = await metadataOf(root);
  const names = describeTarget(target, version);
  const mtime = sourceDateEpoch;
  if (names.deb) await requirePrograms(['dpkg-deb', 'gzip']);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const at = (name) => join(outDir, name);
  const written = [];

  const executable = at(names.executable);
  const built = await buildExecutable({ root, version, outFile: executable });
  const nodeVersion = /^v?(\d+\.\d+\.\d+)$/.exec(String(built?.nodeVersion))?.[1];
  if (!nodeVersion) throw new Error(`the executable's build named no Node version (${String(built?.nodeVersion)})`);
  await chmod(executable, 0o755);
  written.push(names.executable);

  if (names.tarball) {
    await writeTarball(at(names.tarball), tarballEntries(names.tarballFolder, root, executable), mtime);
    written.push(names.tarball);
  }

  if (names.deb) {
    await writeDeb(at(names.deb), { root, executable, version, debArch: names.debArch, mtime, meta, nodeVersion });
    written.push(names.deb);
  }

  const buildInfo = [
    `SVCADM_VERSION=${version}`,
    `TARGET=${target}`,
    `NODE_VERSION=${nodeVersion}`,
    ...(commit ? [`COMMIT=${commit}`] : []),
    `SOURCE_DATE_EPOCH=${mtime}`,
  ];
  await writeFile(at(names.buildInfo), `${buildInfo.join('\n')}\n`);
  written.push(names.buildInfo);

  const sums = await writeChecksums(outDir, written);
  written.push('SHA256SUMS');

  // Without the address of the published downloads, the formula installs from this folder (a local tap).
  const downloads = baseUrl ?? pathToFileURL(outDir).href;
  if (baseUrl === undefined) log(`svcadm.rb installs from ${downloads}: give --base-url for the published downloads`);
  const all = { ...checksums, [target]: sums[names.download] };
  written.push(...(await writeFormulaAndManifest(outDir, { version, baseUrl: downloads, checksums: all, meta, log })));
  for (const name of written) await utimes(at(name), mtime, mtime);
  return written;
}

/** The tarball's entries under its top folder, sorted by name as `LC_ALL=C sort` would. */
function tarballEntries(top, root, executable) {
  const file = (name, source, mode = 0o644) => ({ name: `${top}/${name}`, source, mode });
  return [
    { name: `${top}/`, mode: 0o755 },
    file('LICENSE', join(root, 'LICENSE')),
    file('README.md', join(root, 'README.md')),
    { name: `${top}/completions/`, mode: 0o755 },
    file('completions/_svcadm', join(root, 'completions', '_svcadm')),
    file('completions/svcadm.bash', join(root, 'completions', 'svcadm.bash')),
    file('completions/svcadm.fish', join(root, 'completions', 'svcadm.fish')),
    { name: `${top}/man/`, mode: 0o755 },
    file('man/svcadm.1', join(root, 'man', 'svcadm.1')),
    file('svcadm', executable, 0o755),
  ];
}

/** Writes SHA256SUMS over `names` (sorted bytewise, as sha256sum -c reads it); answers the checksums by name. */
async function writeChecksums(outDir, names) {
  const sums = {};
  for (const name of names) sums[name] = await sha256Of(join(outDir, name));
  const sorted = Object.keys(sums).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await writeFile(join(outDir, 'SHA256SUMS'), sorted.map((name) => `${sums[name]}  ${name}\n`).join(''));
  return sums;
}

/** Writes svcadm.rb and svcadm.json where they have a target to hold; answers the names written. */
async function writeFormulaAndManifest(outDir, { version, baseUrl, checksums, meta, log }) {
  const written = [];
  const formula = homebrewFormula({ version, baseUrl, checksums, ...meta });
  if (formula === undefined) {
    log('svcadm.rb not written: no macOS or Linux checksum');
  } else {
    const missing = TARGETS.filter((t) => !t.startsWith('windows-') && !checksums[t]);
    if (missing.length) log(`svcadm.rb leaves out ${missing.join(', ')}: no --sha256 for them`);
    await writeFile(join(outDir, 'svcadm.rb'), formula);
    written.push('svcadm.rb');
  }
  const manifest = scoopManifest({ version, baseUrl, checksums, ...meta });
  if (manifest !== undefined) {
    await writeFile(join(outDir, 'svcadm.json'), manifest);
    written.push('svcadm.json');
  }
  return written;
}

/** The commit's hash and time, or undefined outside a git checkout. */
async function commitOf(root) {
  try {
    const { stdout } = await run('git', ['-C', root, 'log', '-1', '--format=%H %ct']);
    const [hash, time] = stdout.trim().split(' ');
    return { hash, time: Number(time) };
  } catch {
    return undefined;
  }
}

async function main() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    const target = targetOf(process.platform, process.arch);
    if (!target) {
      throw new ReleaseEnvironmentError(
        `no release target for ${process.platform}-${process.arch}; svcadm is built for ${TARGETS.join(', ')}`,
      );
    }
    const options = parseReleaseArgs(process.argv.slice(2), process.env, target);
    if (options.help) {
      process.stdout.write(USAGE);
      return;
    }
    const commit = await commitOf(root);
    const sourceDateEpoch = sourceDateEpochOf(process.env, commit?.time);
    const { buildExecutable } = await import('./executable.js');
    const outDir = join(root, 'release');
    const written = await release({
      root,
      outDir,
      target,
      sourceDateEpoch,
      commit: commit?.hash,
      baseUrl: options.baseUrl,
      checksums: options.checksums,
      buildExecutable,
      log: (line) => process.stderr.write(`svcadm: ${line}\n`),
    });
    for (const name of written) {
      const { size } = await stat(join(outDir, name));
      process.stdout.write(`${relative(root, join(outDir, name))}  ${size} bytes\n`);
    }
  } catch (error) {
    if (error instanceof ReleaseInputError) {
      process.stderr.write(`svcadm: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof ReleaseEnvironmentError) {
      process.stderr.write(`svcadm: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`svcadm: the release failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
