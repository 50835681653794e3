// The .deb: svcadm's files where Debian's programs look for them, built with dpkg-deb (owner root, one time for every
// file) (docs/decisions/2026-11-28-release-packages.md).
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What the executable needs of the system: glibc 2.28 or newer and the C++ runtime Node links to. */
export const DEB_DEPENDS = 'libc6 (>= 2.28), libstdc++6, libgcc-s1, libatomic1';

const LONG_DESCRIPTION = [
  'svcadm administers a tenant of the identity service from a terminal, from CI',
  'scripts and for AI agents: profiles and tokens, rate limit policies, the',
  'event stream, directory provisionings, user permissions and connection users.',
  'svcadm emulator runs a local tenant that speaks the same interface.',
  '.',
  'One executable with Node.js built in: the machine needs no Node of its own.',
];

/** Text as the lines of a control or copyright field's continuation: one space in front, a blank line as ` .`. */
function continuation(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => (line.trim() === '' ? ' .' : ` ${line}`))
    .join('\n');
}

/**
 * `/usr/share/doc/svcadm/copyright` in Debian's machine-readable form: the licence's text from LICENSE (after its
 * copyright line), and what the executable embeds.
 */
export function debCopyright({ license, licenseText, homepage, nodeVersion }) {
  const lines = licenseText.split('\n');
  const at = lines.findIndex((line) => /^Copyright\b/i.test(line));
  const holder = at === -1 ? 'svcadm contributors' : lines[at].replace(/^Copyright\s*(\(c\)|©)?\s*/i, '').trim();
  const terms = at === -1 ? licenseText : lines.slice(at + 1).join('\n');
  // Debian calls the MIT licence Expat.
  const name = license === 'MIT' ? 'Expat' : license;
  return `${[
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: svcadm',
    ...(homepage ? [`Source: ${homepage}`] : []),
    '',
    'Files: *',
    `Copyright: ${holder}`,
    `License: ${name}`,
    'Comment: usr/bin/svcadm is a single executable that embeds',
    ` Node.js ${nodeVersion} (https://nodejs.org/; its licence and those of the`,
    ` components it bundles: https://github.com/nodejs/node/blob/v${nodeVersion}/LICENSE)`,
    ' and the JavaScript packages svcadm bundles, each under its own licence.',
    '',
    `License: ${name}`,
    continuation(terms.replace(/^\n+/, '')),
  ].join('\n')}\n`;
}

/** The control file's text. */
export function debControl({ version, debArch, installedSizeKiB, maintainer, description, homepage }) {
  // Debian's synopsis starts in lower case and ends without a full stop.
  const synopsis = description.charAt(0).toLowerCase() + description.slice(1).replace(/\.$/, '');
  return `${[
    'Package: svcadm',
    `Version: ${version}`,
    `Architecture: ${debArch}`,
    `Maintainer: ${maintainer}`,
    `Installed-Size: ${installedSizeKiB}`,
    `Depends: ${DEB_DEPENDS}`,
    'Section: admin',
    'Priority: optional',
    ...(homepage ? [`Homepage: ${homepage}`] : []),
    `Description: ${synopsis}`,
    continuation(LONG_DESCRIPTION.join('\n')),
  ].join('\n')}\n`;
}

/** Where each file goes in the package, and its mode. */
function layout({ executable, root }) {
  return [
    { path: 'usr/bin/svcadm', source: executable, mode: 0o755 },
    { path: 'usr/share/bash-completion/completions/svcadm', source: join(root, 'completions', 'svcadm.bash') },
    { path: 'usr/share/zsh/vendor-completions/_svcadm', source: join(root, 'completions', '_svcadm') },
    { path: 'usr/share/fish/vendor_completions.d/svcadm.fish', source: join(root, 'completions', 'svcadm.fish') },
    { path: 'usr/share/man/man1/svcadm.1.gz', gzip: join(root, 'man', 'svcadm.1') },
    { path: 'usr/share/doc/svcadm/copyright', text: 'copyright' },
  ];
}

/**
 * Builds `outFile` with dpkg-deb from the executable and the files of `root`; every file and folder is stamped with
 * `mtime` (seconds), which dpkg-deb also reads as SOURCE_DATE_EPOCH.
 */
export async function writeDeb(outFile, { root, executable, version, debArch, mtime, meta, nodeVersion }) {
  const stage = await mkdtemp(join(tmpdir(), 'svcadm-deb-'));
  try {
    const folders = new Set(['DEBIAN']);
    let installedSizeKiB = 0;
    for (const file of layout({ executable, root })) {
      const to = join(stage, file.path);
      for (let dir = dirname(file.path); dir !== '.'; dir = dirname(dir)) folders.add(dir);
      await mkdir(dirname(to), { recursive: true });
      if (file.source) {
        await copyFile(file.source, to);
      } else if (file.gzip) {
        // gzip -9n: no name or time in the header, as Debian wants manual pages.
        const { stdout } = await run('gzip', ['-9n', '-c', file.gzip], { encoding: 'buffer', maxBuffer: 64 << 20 });
        await writeFile(to, stdout);
      } else {
        const licenseText = await readFile(join(root, 'LICENSE'), 'utf8');
        await writeFile(to, debCopyright({ ...meta, licenseText, nodeVersion }));
      }
      await chmod(to, file.mode ?? 0o644);
      installedSizeKiB += Math.ceil((await stat(to)).size / 1024);
    }
    await mkdir(join(stage, 'DEBIAN'), { recursive: true });
    const control = join(stage, 'DEBIAN', 'control');
    await writeFile(control, debControl({ version, debArch, installedSizeKiB, ...meta }));
    await chmod(control, 0o644);
    for (const folder of ['.', ...folders]) await chmod(join(stage, folder), 0o755);
    for (const file of [...layout({ executable, root }).map((f) => f.path), 'DEBIAN/control', ...folders, '.']) {
      await utimes(join(stage, file), mtime, mtime);
    }
    await run('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, outFile], {
      env: { ...process.env, SOURCE_DATE_EPOCH: String(mtime) },
    });
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
