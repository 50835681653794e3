// svcadm.json: a Scoop manifest, for the Windows targets whose checksum is known.
import { describeTarget } from './targets.js';

const ARCHITECTURES = [
  { key: '64bit', target: 'windows-x64' },
  { key: 'arm64', target: 'windows-arm64' },
];

/**
 * The manifest's text, or undefined when no Windows target has a checksum. Each download is the executable alone,
 * saved by Scoop as svcadm.exe (the `#/` of its URL).
 */
export function scoopManifest({ version, baseUrl, checksums, description, homepage, license }) {
  const architecture = {};
  for (const { key, target } of ARCHITECTURES) {
    if (!checksums[target]) continue;
    architecture[key] = {
      url: `${baseUrl}/${describeTarget(target, version).executable}#/svcadm.exe`,
      hash: checksums[target],
    };
  }
  if (!Object.keys(architecture).length) return undefined;
  const manifest = {
    version,
    description: description.replace(/\.$/, ''),
    ...(homepage ? { homepage } : {}),
    license,
    architecture,
    bin: 'svcadm.exe',
  };
  return `${JSON.stringify(manifest, null, 4)}\n`;
}
