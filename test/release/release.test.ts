import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseEnvironmentError, release } from '../../scripts/release/index.js';
import { requireProgram } from '../helpers/requires.js';

// `npm run release` with a stand-in for the single executable (a shell script that prints the version): the
// tarball, the .deb, SHA256SUMS, the build info, the Homebrew formula and the Scoop manifest, read back with tar,
// dpkg-deb and sha256sum. The real executable is built and installed by .ci/run.

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'svcadm-release-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dpkgDeb = requireProgram('dpkg-deb', 'apt-get install -y dpkg');

/** 2026-11-28 14:06:20 UTC. */
const EPOCH = 1795874780;
const HEX = { a: 'a'.repeat(64), b: 'b'.repeat(64), c: 'c'.repeat(64), d: 'd'.repeat(64), e: 'e'.repeat(64) };

/** A checkout of its own, with small files whose sizes the listings below show. */
function fixtureRoot(): string {
  const root = join(work, 'checkout');
  mkdirSync(join(root, 'completions'), { recursive: true });
  mkdirSync(join(root, 'man'), { recursive: true });
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'svcadm',
      version: '1.2.3',
      description: 'Administer an identity service tenant from the terminal and from CI',
      license: 'MIT',
    }),
    'README.md': '# svcadm\n',
    LICENSE:
      'MIT License\n\nCopyright (c) 2026 svcadm contributors\n\nPermission is hereby granted, free of charge.\n\nTHE SOFTWARE IS PROVIDED "AS IS".\n',
    'completions/_svcadm': '#compdef svcadm\n',
    'completions/svcadm.bash': 'complete -F _svcadm svcadm\n',
    'completions/svcadm.fish': 'complete -c svcadm\n',
    'man/svcadm.1': '.TH SVCADM 1\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

/** The stand-in: a script that prints the version, as the real executable's --version does. */
async function standIn({ outFile, version }: { root: string; version: string; outFile: string }) {
  writeFileSync(outFile, `#!/bin/sh\necho ${version}\n`);
  return { nodeVersion: 'v26.0.0', sizeBytes: 21 };
}

let root: string;
let notes: string[];
let written: string[];
/** Builds a release of the fixture checkout into `work/<name>`. */
async function build(name: string, options: { baseUrl?: string; checksums?: Record<string, string> } = {}) {
  const outDir = join(work, name);
  notes = [];
  written = await release({
    root,
    outDir,
    target: 'linux-x64',
    sourceDateEpoch: EPOCH,
    commit: '0123456789abcdef0123456789abcdef01234567',
    buildExecutable: standIn,
    log: (line) => notes.push(line),
    ...options,
  });
  return outDir;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** A listing's lines with their runs of spaces made one. */
function columns(listing: string): string[] {
  return listing
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).join(' '));
}

let out: string;
beforeAll(async () => {
  root = fixtureRoot();
  out = await build('plain', {
    baseUrl: 'https://downloads.example.com/svcadm/v1.2.3',
    checksums: { 'darwin-arm64': HEX.a, 'darwin-x64': HEX.b, 'linux-arm64': HEX.c },
  });
});

describe.skipIf(dpkgDeb.missing)(dpkgDeb.title('npm run release, with a stand-in executable'), () => {
  it('writes the executable, its tarball, the .deb, the build info, SHA256SUMS and the formula, and nothing else', () => {
    expect(written).toEqual([
      'svcadm-1.2.3-linux-x64',
      'svcadm-1.2.3-linux-x64.tar.gz',
      'svcadm_1.2.3_amd64.deb',
      'svcadm-1.2.3-linux-x64.build-info',
      'SHA256SUMS',
      'svcadm.rb',
    ]);
    expect(readdirSync(out).sort()).toEqual([...written].sort());
    expect(notes).toEqual([]);
    expect(readFileSync(join(out, 'svcadm-1.2.3-linux-x64.build-info'), 'utf8')).toBe(
      'SVCADM_VERSION=1.2.3\nTARGET=linux-x64\nNODE_VERSION=26.0.0\nCOMMIT=0123456789abcdef0123456789abcdef01234567\nSOURCE_DATE_EPOCH=1795874780\n',
    );
  });

  it('tars one top folder, sorted, owned by 0/0, at the commit time, the executable alone executable', async () => {
    const { stdout } = await run('tar', ['--numeric-owner', '-tvzf', join(out, 'svcadm-1.2.3-linux-x64.tar.gz')], {
      env: { ...process.env, TZ: 'UTC' },
    });
    expect(columns(stdout)).toEqual([
      'drwxr-xr-x 0/0 0 2026-11-28 14:06 svcadm-1.2.3-linux-x64/',
      '-rw-r--r-- 0/0 134 2026-11-28 14:06 svcadm-1.2.3-linux-x64/LICENSE',
      '-rw-r--r-- 0/0 9 2026-11-28 14:06 svcadm-1.2.3-linux-x64/README.md',
      'drwxr-xr-x 0/0 0 2026-11-28 14:06 svcadm-1.2.3-linux-x64/completions/',
      '-rw-r--r-- 0/0 16 2026-11-28 14:06 svcadm-1.2.3-linux-x64/completions/_svcadm',
      '-rw-r--r-- 0/0 27 2026-11-28 14:06 svcadm-1.2.3-linux-x64/completions/svcadm.bash',
      '-rw-r--r-- 0/0 19 2026-11-28 14:06 svcadm-1.2.3-linux-x64/completions/svcadm.fish',
      'drwxr-xr-x 0/0 0 2026-11-28 14:06 svcadm-1.2.3-linux-x64/man/',
      '-rw-r--r-- 0/0 13 2026-11-28 14:06 svcadm-1.2.3-linux-x64/man/svcadm.1',
      '-rwxr-xr-x 0/0 21 2026-11-28 14:06 svcadm-1.2.3-linux-x64/svcadm',
    ]);
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    await run('tar', ['-xzf', join(out, 'svcadm-1.2.3-linux-x64.tar.gz'), '-C', unpacked]);
    expect((await run(join(unpacked, 'svcadm-1.2.3-linux-x64', 'svcadm'), ['--version'])).stdout).toBe('1.2.3\n');
    expect(readFileSync(join(unpacked, 'svcadm-1.2.3-linux-x64', 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(root, 'LICENSE'), 'utf8'),
    );
  });

  it("puts each file where Debian's programs look, owned by root", async () => {
    const { stdout } = await run('dpkg-deb', ['-c', join(out, 'svcadm_1.2.3_amd64.deb')], {
      env: { ...process.env, TZ: 'UTC' },
    });
    expect(columns(stdout)).toEqual([
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/bin/',
      '-rwxr-xr-x root/root 21 2026-11-28 14:06 ./usr/bin/svcadm',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/bash-completion/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/bash-completion/completions/',
      '-rw-r--r-- root/root 27 2026-11-28 14:06 ./usr/share/bash-completion/completions/svcadm',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/doc/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/doc/svcadm/',
      '-rw-r--r-- root/root 535 2026-11-28 14:06 ./usr/share/doc/svcadm/copyright',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/fish/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/fish/vendor_completions.d/',
      '-rw-r--r-- root/root 19 2026-11-28 14:06 ./usr/share/fish/vendor_completions.d/svcadm.fish',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/man/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/man/man1/',
      '-rw-r--r-- root/root 33 2026-11-28 14:06 ./usr/share/man/man1/svcadm.1.gz',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/zsh/',
      'drwxr-xr-x root/root 0 2026-11-28 14:06 ./usr/share/zsh/vendor-completions/',
      '-rw-r--r-- root/root 16 2026-11-28 14:06 ./usr/share/zsh/vendor-completions/_svcadm',
    ]);
  });

  it('says what the package is, what it needs of the system and who maintains it', async () => {
    const { stdout } = await run('dpkg-deb', ['-f', join(out, 'svcadm_1.2.3_amd64.deb')]);
    expect(stdout).toBe(
      [
        'Package: svcadm',
        'Version: 1.2.3',
        'Architecture: amd64',
        'Maintainer: svcadm contributors',
        'Installed-Size: 6',
        'Depends: libc6 (>= 2.28), libstdc++6, libgcc-s1, libatomic1',
        'Section: admin',
        'Priority: optional',
        'Description: administer an identity service tenant from the terminal and from CI',
        ' svcadm administers a tenant of the identity service from a terminal, from CI',
        ' scripts and for AI agents: profiles and tokens, rate limit policies, the',
        ' event stream, directory provisionings, user permissions and connection users.',
        ' svcadm emulator runs a local tenant that speaks the same interface.',
        ' .',
        ' One executable with Node.js built in: the machine needs no Node of its own.',
        '',
      ].join('\n'),
    );
  });

  it("carries the licence in Debian's form, naming the Node.js inside, and the manual page gzipped without a name or time", async () => {
    const tree = join(work, 'deb-tree');
    await run('dpkg-deb', ['-x', join(out, 'svcadm_1.2.3_amd64.deb'), tree]);
    expect(readFileSync(join(tree, 'usr/share/doc/svcadm/copyright'), 'utf8')).toBe(
      [
        'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
        'Upstream-Name: svcadm',
        '',
        'Files: *',
        'Copyright: 2026 svcadm contributors',
        'License: Expat',
        'Comment: usr/bin/svcadm is a single executable that embeds',
        ' Node.js 26.0.0 (https://nodejs.org/; its licence and those of the',
        ' components it bundles: https://github.com/nodejs/node/blob/v26.0.0/LICENSE)',
        ' and the JavaScript packages svcadm bundles, each under its own licence.',
        '',
        'License: Expat',
        ' Permission is hereby granted, free of charge.',
        ' .',
        ' THE SOFTWARE IS PROVIDED "AS IS".',
        '',
      ].join('\n'),
    );
    const manGz = readFileSync(join(tree, 'usr/share/man/man1/svcadm.1.gz'));
    // gzip -9n: no FNAME flag, a zero time, the best compression (XFL 2).
    expect([...manGz.subarray(0, 9)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2]);
    expect((await run('gzip', ['-dc', join(tree, 'usr/share/man/man1/svcadm.1.gz')])).stdout).toBe('.TH SVCADM 1\n');
  });

  it('lists every download in SHA256SUMS, which sha256sum -c checks, and which catches a changed file', async () => {
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8')).toBe(
      [
        'svcadm-1.2.3-linux-x64',
        'svcadm-1.2.3-linux-x64.build-info',
        'svcadm-1.2.3-linux-x64.tar.gz',
        'svcadm_1.2.3_amd64.deb',
      ]
        .map((name) => `${sha256(join(out, name))}  ${name}\n`)
        .join(''),
    );
    expect((await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out })).stdout).toBe(
      'svcadm-1.2.3-linux-x64: OK\nsvcadm-1.2.3-linux-x64.build-info: OK\nsvcadm-1.2.3-linux-x64.tar.gz: OK\nsvcadm_1.2.3_amd64.deb: OK\n',
    );
    const copy = await build('changed');
    appendFileSync(join(copy, 'svcadm_1.2.3_amd64.deb'), 'x');
    await expect(run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: copy })).rejects.toMatchObject({
      code: 1,
      stdout:
        'svcadm-1.2.3-linux-x64: OK\nsvcadm-1.2.3-linux-x64.build-info: OK\nsvcadm-1.2.3-linux-x64.tar.gz: OK\nsvcadm_1.2.3_amd64.deb: FAILED\n',
    });
  });

  it('makes the same bytes twice from the same checkout and time', async () => {
    const again = await build('again', {
      baseUrl: 'https://downloads.example.com/svcadm/v1.2.3',
      checksums: { 'darwin-arm64': HEX.a, 'darwin-x64': HEX.b, 'linux-arm64': HEX.c },
    });
    for (const name of written) expect(sha256(join(again, name)), name).toBe(sha256(join(out, name)));
  });

  it('writes the formula from the base URL, the checksums given and the tarball built here', () => {
    const linux = sha256(join(out, 'svcadm-1.2.3-linux-x64.tar.gz'));
    expect(
      readFileSync(join(out, 'svcadm.rb'), 'utf8'),
    ).toBe(`# svcadm 1.2.3, written by npm run release: copy it to Formula/svcadm.rb in a tap.
class Svcadm < Formula
  desc "Administer an identity service tenant from the terminal and from CI"
  version "1.2.3"
  license "MIT"

  on_macos do
    on_arm do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-darwin-arm64.tar.gz"
      sha256 "${HEX.a}"
    end
    on_intel do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-darwin-x64.tar.gz"
      sha256 "${HEX.b}"
    end
  end

  on_linux do
    on_arm do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-linux-arm64.tar.gz"
      sha256 "${HEX.c}"
    end
    on_intel do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-linux-x64.tar.gz"
      sha256 "${linux}"
    end
  end

  def install
    bin.install "svcadm"
    bash_completion.install "completions/svcadm.bash" => "svcadm"
    zsh_completion.install "completions/_svcadm"
    fish_completion.install "completions/svcadm.fish"
    man1.install "man/svcadm.1"
  end

  test do
    assert_equal "1.2.3\\n", shell_output("#{bin}/svcadm --version")
  end
end
`);
  });

  it('leaves a target without a checksum out of the formula, and says so', async () => {
    const only = await build('only-here', { baseUrl: 'https://downloads.example.com/svcadm/v1.2.3' });
    expect(notes).toEqual(['svcadm.rb leaves out darwin-arm64, darwin-x64, linux-arm64: no --sha256 for them']);
    const linux = sha256(join(only, 'svcadm-1.2.3-linux-x64.tar.gz'));
    expect(readFileSync(join(only, 'svcadm.rb'), 'utf8')).toContain(`  license "MIT"

  on_linux do
    on_intel do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-linux-x64.tar.gz"
      sha256 "${linux}"
    end
  end

  def install
`);
    expect(existsIn(only, 'svcadm.json')).toBe(false);
  });

  it('without a base URL, writes a formula that installs from the release folder, and says so', async () => {
    const none = await build('no-base-url');
    const folder = pathToFileURL(none).href;
    expect(notes).toEqual([
      `svcadm.rb installs from ${folder}: give --base-url for the published downloads`,
      'svcadm.rb leaves out darwin-arm64, darwin-x64, linux-arm64: no --sha256 for them',
    ]);
    expect(readdirSync(none).sort()).toEqual([
      'SHA256SUMS',
      'svcadm-1.2.3-linux-x64',
      'svcadm-1.2.3-linux-x64.build-info',
      'svcadm-1.2.3-linux-x64.tar.gz',
      'svcadm.rb',
      'svcadm_1.2.3_amd64.deb',
    ]);
    expect(readFileSync(join(none, 'svcadm.rb'), 'utf8')).toContain(
      `      url "${folder}/svcadm-1.2.3-linux-x64.tar.gz"\n`,
    );
  });

  it('writes the Scoop manifest when a Windows checksum is given', async () => {
    const windows = await build('windows', {
      baseUrl: 'https://downloads.example.com/svcadm/v1.2.3',
      checksums: { 'windows-x64': HEX.d, 'windows-arm64': HEX.e },
    });
    expect(readFileSync(join(windows, 'svcadm.json'), 'utf8')).toBe(`{
    "version": "1.2.3",
    "description": "Administer an identity service tenant from the terminal and from CI",
    "license": "MIT",
    "architecture": {
        "64bit": {
            "url": "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-windows-x64.exe#/svcadm.exe",
            "hash": "${HEX.d}"
        },
        "arm64": {
            "url": "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-windows-arm64.exe#/svcadm.exe",
            "hash": "${HEX.e}"
        }
    },
    "bin": "svcadm.exe"
}
`);
    expect(written).toContain('svcadm.json');
  });
});

describe.skipIf(dpkgDeb.missing)(dpkgDeb.title('npm run release on runners of other kinds'), () => {
  // Only linux-x64 is built here; these runs name another target to show what its runner would make.
  async function buildFor(target: string, name: string) {
    const outDir = join(work, name);
    notes = [];
    const files = await release({
      root,
      outDir,
      target,
      sourceDateEpoch: EPOCH,
      baseUrl: 'https://downloads.example.com/svcadm/v1.2.3',
      buildExecutable: standIn,
      log: (line) => notes.push(line),
    });
    return { outDir, files };
  }

  it('linux-arm64: a .deb for arm64, and the formula on Linux on ARM from this build', async () => {
    const { outDir, files } = await buildFor('linux-arm64', 'linux-arm64');
    expect(files).toEqual([
      'svcadm-1.2.3-linux-arm64',
      'svcadm-1.2.3-linux-arm64.tar.gz',
      'svcadm_1.2.3_arm64.deb',
      'svcadm-1.2.3-linux-arm64.build-info',
      'SHA256SUMS',
      'svcadm.rb',
    ]);
    expect((await run('dpkg-deb', ['-f', join(outDir, 'svcadm_1.2.3_arm64.deb'), 'Architecture'])).stdout).toBe(
      'arm64\n',
    );
    expect(notes).toEqual(['svcadm.rb leaves out darwin-arm64, darwin-x64, linux-x64: no --sha256 for them']);
    expect(readFileSync(join(outDir, 'svcadm.rb'), 'utf8')).toContain(`  on_linux do
    on_arm do
      url "https://downloads.example.com/svcadm/v1.2.3/svcadm-1.2.3-linux-arm64.tar.gz"
      sha256 "${sha256(join(outDir, 'svcadm-1.2.3-linux-arm64.tar.gz'))}"
    end
  end
`);
  });

  it('darwin-arm64: the executable and its tarball, no .deb', async () => {
    const { files } = await buildFor('darwin-arm64', 'darwin-arm64');
    expect(files).toEqual([
      'svcadm-1.2.3-darwin-arm64',
      'svcadm-1.2.3-darwin-arm64.tar.gz',
      'svcadm-1.2.3-darwin-arm64.build-info',
      'SHA256SUMS',
      'svcadm.rb',
    ]);
  });

  it('windows-x64: the .exe alone, and the Scoop manifest from this build, with no formula', async () => {
    const { outDir, files } = await buildFor('windows-x64', 'windows-x64');
    expect(files).toEqual([
      'svcadm-1.2.3-windows-x64.exe',
      'svcadm-1.2.3-windows-x64.build-info',
      'SHA256SUMS',
      'svcadm.json',
    ]);
    expect(notes).toEqual(['svcadm.rb not written: no macOS or Linux checksum']);
    expect(readFileSync(join(outDir, 'svcadm.json'), 'utf8')).toContain(
      `"hash": "${sha256(join(outDir, 'svcadm-1.2.3-windows-x64.exe'))}"`,
    );
  });
});

describe('npm run release on a machine without dpkg-deb', () => {
  it('says so in one line before building anything', async () => {
    // A PATH with nothing on it: dpkg-deb is not found.
    const path = process.env.PATH;
    process.env.PATH = join(work, 'empty-path');
    let built = false;
    try {
      await expect(
        release({
          root,
          outDir: join(work, 'no-dpkg'),
          target: 'linux-x64',
          sourceDateEpoch: EPOCH,
          buildExecutable: async (options) => {
            built = true;
            return standIn(options);
          },
        }),
      ).rejects.toThrow(new ReleaseEnvironmentError('dpkg-deb is not installed: the release runs it'));
    } finally {
      process.env.PATH = path;
    }
    expect(built).toBe(false);
    expect(readdirSync(work)).not.toContain('no-dpkg');
  });
});

describe.skipIf(dpkgDeb.missing)(dpkgDeb.title("npm run release of this checkout's files"), () => {
  it('packs the committed completions and manual page, and the bash completion loads', async () => {
    const outDir = join(work, 'checkout-release');
    await release({ root: ROOT, outDir, target: 'linux-x64', sourceDateEpoch: EPOCH, buildExecutable: standIn });
    const tree = join(work, 'checkout-deb');
    const deb = readdirSync(outDir).find((name) => name.endsWith('.deb')) ?? '';
    await run('dpkg-deb', ['-x', join(outDir, deb), tree]);
    const bash = join(tree, 'usr/share/bash-completion/completions/svcadm');
    expect(readFileSync(bash, 'utf8')).toBe(readFileSync(join(ROOT, 'completions', 'svcadm.bash'), 'utf8'));
    expect(readFileSync(join(tree, 'usr/share/zsh/vendor-completions/_svcadm'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'completions', '_svcadm'), 'utf8'),
    );
    expect(readFileSync(join(tree, 'usr/share/fish/vendor_completions.d/svcadm.fish'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'completions', 'svcadm.fish'), 'utf8'),
    );
    expect((await run('gzip', ['-dc', join(tree, 'usr/share/man/man1/svcadm.1.gz')])).stdout).toBe(
      readFileSync(join(ROOT, 'man', 'svcadm.1'), 'utf8'),
    );
    expect((await run('bash', ['-c', `source '${bash}' && complete -p svcadm`])).stdout).toBe(
      'complete -F _svcadm svcadm\n',
    );
  });
});

function existsIn(dir: string, name: string): boolean {
  return readdirSync(dir).includes(name);
}
