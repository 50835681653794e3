// The targets svcadm is released for: how each is named, what is made for it, and which one this machine builds.
// Only linux-x64 is built and tested here; the others are built by the same script on a runner of their kind
// (docs/decisions/2026-11-28-release-packages.md).

/** Every target, in the order the formula and the manifest list them. */
export const TARGETS = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'windows-arm64', 'windows-x64'];

const OS_OF_PLATFORM = { linux: 'linux', darwin: 'darwin', win32: 'windows' };
const ARCHES = ['x64', 'arm64'];
const DEB_ARCH = { x64: 'amd64', arm64: 'arm64' };

/** The target of a Node platform and architecture (`process.platform`, `process.arch`), or undefined. */
export function targetOf(platform, arch) {
  const os = OS_OF_PLATFORM[platform];
  return os && ARCHES.includes(arch) ? `${os}-${arch}` : undefined;
}

/** What a target is: its system, its architecture, and the names of what is made for it. */
export function describeTarget(target, version) {
  const [os, arch] = target.split('-');
  const base = `svcadm-${version}-${target}`;
  return {
    target,
    os,
    arch,
    executable: os === 'windows' ? `${base}.exe` : base,
    // Windows gets the executable alone (Scoop renames it on download); the others a tarball too.
    tarball: os === 'windows' ? undefined : `${base}.tar.gz`,
    tarballFolder: base,
    /** What the build was made from: the Node version inside, the commit, the time stamped on the files. */
    buildInfo: `${base}.build-info`,
    deb: os === 'linux' ? `svcadm_${version}_${DEB_ARCH[arch]}.deb` : undefined,
    debArch: os === 'linux' ? DEB_ARCH[arch] : undefined,
    /** The file users download for this target: what the formula and the manifest point at. */
    download: os === 'windows' ? `${base}.exe` : `${base}.tar.gz`,
  };
}
