// svcadm.rb: a Homebrew formula for a tap, for the macOS and Linux targets whose checksum is known.
import { describeTarget } from './targets.js';

const SYSTEMS = [
  { block: 'on_macos', os: 'darwin' },
  { block: 'on_linux', os: 'linux' },
];
const CPUS = [
  { block: 'on_arm', arch: 'arm64' },
  { block: 'on_intel', arch: 'x64' },
];

/** A Ruby string literal. */
function ruby(text) {
  return JSON.stringify(text).replace(/#\{/g, '\\#{');
}

/**
 * The formula's text, or undefined when no macOS or Linux target has a checksum. `checksums` holds the download's
 * SHA-256 by target; the downloads are `<baseUrl>/<tarball>`.
 */
export function homebrewFormula({ version, baseUrl, checksums, description, homepage, license }) {
  const systems = [];
  for (const system of SYSTEMS) {
    const cpus = [];
    for (const cpu of CPUS) {
      const target = `${system.os}-${cpu.arch}`;
      if (!checksums[target]) continue;
      cpus.push(
        `    ${cpu.block} do`,
        `      url ${ruby(`${baseUrl}/${describeTarget(target, version).tarball}`)}`,
        `      sha256 ${ruby(checksums[target])}`,
        '    end',
      );
    }
    if (cpus.length) systems.push(`  ${system.block} do`, ...cpus, '  end', '');
  }
  if (!systems.length) return undefined;
  return `${[
    `# svcadm ${version}, written by npm run release: copy it to Formula/svcadm.rb in a tap.`,
    'class Svcadm < Formula',
    `  desc ${ruby(description.replace(/\.$/, ''))}`,
    ...(homepage ? [`  homepage ${ruby(homepage)}`] : []),
    `  version ${ruby(version)}`,
    `  license ${ruby(license)}`,
    '',
    ...systems,
    '  def install',
    '    bin.install "svcadm"',
    '    bash_completion.install "completions/svcadm.bash" => "svcadm"',
    '    zsh_completion.install "completions/_svcadm"',
    '    fish_completion.install "completions/svcadm.fish"',
    '    man1.install "man/svcadm.1"',
    '  end',
    '',
    '  test do',
    `    assert_equal ${ruby(`${version}\n`)}, shell_output("#{bin}/svcadm --version")`,
    '  end',
    'end',
  ].join('\n')}\n`;
}
