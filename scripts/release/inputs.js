// The inputs of `npm run release`: where the downloads will be published and the checksums of the targets built
// elsewhere. Every one is checked before anything is built; a bad one is one line and exit 2.
import { TARGETS } from './targets.js';

/** A bad input: the release stops before building anything, with this line and exit 2. */
export class ReleaseInputError extends Error {}

export const USAGE = `Usage: npm run release -- [--base-url <https-url>] [--sha256 <target>=<sha256>]...

Builds release/ for this machine's target: the single executable, its .tar.gz, the .deb (Linux), the build info,
SHA256SUMS, and the Homebrew formula svcadm.rb (installing from release/ itself without --base-url); svcadm.json
(Scoop) when a Windows checksum is given.

  --base-url <https-url>        where the downloads will be published (env SVCADM_RELEASE_BASE_URL)
  --sha256 <target>=<sha256>    the checksum of a target built on another runner (repeatable); targets:
                                ${TARGETS.join(', ')}
  SOURCE_DATE_EPOCH             the time stamped on every file (default: the commit's time)
`;

/** A value as a line may show it: quoted, control characters escaped, at most 80 characters. */
function shown(value) {
  const text = value.length > 80 ? `${value.slice(0, 79)}…` : value;
  return JSON.stringify(text);
}

/** The base URL of the downloads, without a trailing slash; `from` names where it came from. */
function baseUrlOf(value, from) {
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new ReleaseInputError(`${from} ${shown(value)}: not a URL`);
  }
  if (url.protocol !== 'https:') throw new ReleaseInputError(`${from} ${shown(value)}: must be an https:// URL`);
  if (url.username || url.password || url.search || url.hash) {
    throw new ReleaseInputError(
      `${from} ${shown(value)}: must not carry a user, a query or a fragment (the file names are added to its path)`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

/** One `--sha256 <target>=<hex>` into `checksums`. */
function addChecksum(value, checksums, builtHere) {
  const match = /^([^=]*)=(.*)$/s.exec(value);
  if (!match) {
    throw new ReleaseInputError(
      `--sha256 ${shown(value)}: expected <target>=<sha256>, as in darwin-arm64=<64 hexadecimal digits>`,
    );
  }
  const [, target, hex] = match;
  if (!TARGETS.includes(target)) {
    throw new ReleaseInputError(`--sha256 ${shown(target)}: unknown target; one of ${TARGETS.join(', ')}`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new ReleaseInputError(`--sha256 ${target}: the checksum must be 64 hexadecimal digits, not ${shown(hex)}`);
  }
  if (target === builtHere) {
    throw new ReleaseInputError(`--sha256 ${target}: this machine builds ${target}; its checksum comes from the build`);
  }
  if (checksums[target]) throw new ReleaseInputError(`--sha256 ${target} given twice`);
  checksums[target] = hex.toLowerCase();
}

/**
 * The release's options from its command line and environment: `{ help }`, or `{ baseUrl, checksums }` with
 * `baseUrl` undefined when none is given and `checksums` by target. `builtHere` is this machine's target.
 */
export function parseReleaseArgs(argv, env, builtHere) {
  const checksums = {};
  let baseUrl;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (name !== '--base-url' && name !== '--sha256') {
      throw new ReleaseInputError(
        arg.startsWith('-')
          ? `unknown option ${shown(name)} (npm run release -- --help)`
          : `unexpected argument ${shown(arg)} (npm run release -- --help)`,
      );
    }
    const value = inline ?? argv[++i];
    if (value === undefined) {
      throw new ReleaseInputError(
        `${name} needs a value: ${name === '--sha256' ? '<target>=<sha256>' : '<https-url>'}`,
      );
    }
    if (name === '--base-url') {
      if (baseUrl !== undefined) throw new ReleaseInputError('--base-url given twice');
      baseUrl = baseUrlOf(value, '--base-url');
    } else {
      addChecksum(value, checksums, builtHere);
    }
  }
  if (baseUrl === undefined && env.SVCADM_RELEASE_BASE_URL) {
    baseUrl = baseUrlOf(env.SVCADM_RELEASE_BASE_URL, 'SVCADM_RELEASE_BASE_URL');
  }
  if (baseUrl === undefined && Object.keys(checksums).length > 0) {
    throw new ReleaseInputError(
      '--sha256 needs --base-url: the checksums only go into svcadm.rb and svcadm.json, which point at the downloads',
    );
  }
  return { help: false, baseUrl, checksums };
}

/**
 * The time stamped on every file of the release, in seconds: SOURCE_DATE_EPOCH when set, else the commit's time
 * (`commitTime`, undefined outside a git checkout).
 */
export function sourceDateEpochOf(env, commitTime) {
  const given = env.SOURCE_DATE_EPOCH;
  if (given !== undefined && given !== '') {
    if (!/^\d{1,12}$/.test(given)) {
      throw new ReleaseInputError(`SOURCE_DATE_EPOCH ${shown(given)}: must be whole seconds since 1970`);
    }
    return Number(given);
  }
  if (commitTime === undefined) {
    throw new ReleaseInputError(
      'no time for the files: not a git checkout, and SOURCE_DATE_EPOCH is not set (seconds since 1970)',
    );
  }
  return commitTime;
}
