import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run release`'s inputs: each bad one is one line and exit 2, before anything is built (the executable's build
// is never reached: these runs end within a second and write nothing to stdout).

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'release', 'index.js');
const run = promisify(execFile);
const A64 = 'a'.repeat(64);

/** The release script's exit code and output, with `env` alone besides PATH and HOME. */
async function release(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run release, bad inputs', () => {
  const cases: [string, string[], Record<string, string>, string][] = [
    [
      'a checksum of the wrong length',
      ['--base-url', 'https://downloads.example.com/v1', '--sha256', 'darwin-arm64=abc'],
      {},
      'svcadm: --sha256 darwin-arm64: the checksum must be 64 hexadecimal digits, not "abc"\n',
    ],
    [
      'a checksum that is not hexadecimal',
      ['--base-url', 'https://downloads.example.com/v1', `--sha256=darwin-x64=${'g'.repeat(64)}`],
      {},
      `svcadm: --sha256 darwin-x64: the checksum must be 64 hexadecimal digits, not "${'g'.repeat(64)}"\n`,
    ],
    [
      'a long bad checksum, cut in the line',
      ['--base-url', 'https://downloads.example.com/v1', '--sha256', `darwin-x64=${'z'.repeat(100)}`],
      {},
      `svcadm: --sha256 darwin-x64: the checksum must be 64 hexadecimal digits, not "${'z'.repeat(79)}…"\n`,
    ],
    [
      'a checksum without its target',
      ['--base-url', 'https://downloads.example.com/v1', '--sha256', A64],
      {},
      `svcadm: --sha256 "${A64}": expected <target>=<sha256>, as in darwin-arm64=<64 hexadecimal digits>\n`,
    ],
    [
      'an unknown target',
      ['--base-url', 'https://downloads.example.com/v1', '--sha256', `beos-x64=${A64}`],
      {},
      `svcadm: --sha256 "beos-x64": unknown target; one of darwin-arm64, darwin-x64, linux-arm64, linux-x64, windows-arm64, windows-x64\n`,
    ],
    [
      'the checksum of the target this machine builds',
      ['--base-url', 'https://downloads.example.com/v1', '--sha256', `linux-x64=${A64}`],
      {},
      'svcadm: --sha256 linux-x64: this machine builds linux-x64; its checksum comes from the build\n',
    ],
    [
      'a target twice',
      [
        '--base-url',
        'https://downloads.example.com/v1',
        '--sha256',
        `darwin-arm64=${A64}`,
        '--sha256',
        `darwin-arm64=${A64}`,
      ],
      {},
      'svcadm: --sha256 darwin-arm64 given twice\n',
    ],
    [
      'checksums without a base URL',
      ['--sha256', `darwin-arm64=${A64}`],
      {},
      'svcadm: --sha256 needs --base-url: the checksums only go into svcadm.rb and svcadm.json, which point at the downloads\n',
    ],
    [
      'a base URL over http',
      ['--base-url', 'http://downloads.example.com/v1'],
      {},
      'svcadm: --base-url "http://downloads.example.com/v1": must be an https:// URL\n',
    ],
    ['a base URL that is no URL', ['--base-url', 'downloads'], {}, 'svcadm: --base-url "downloads": not a URL\n'],
    [
      'a base URL with a query',
      ['--base-url', 'https://downloads.example.com/v1?token=x'],
      {},
      'svcadm: --base-url "https://downloads.example.com/v1?token=x": must not carry a user, a query or a fragment (the file names are added to its path)\n',
    ],
    [
      'a base URL from the environment over http',
      [],
      { SVCADM_RELEASE_BASE_URL: 'http://downloads.example.com/v1' },
      'svcadm: SVCADM_RELEASE_BASE_URL "http://downloads.example.com/v1": must be an https:// URL\n',
    ],
    [
      'a control character in a value',
      ['--base-url', 'https://downloads.example.com/\x1b[31mv1', '--sha256', 'darwin-arm64=\x1b[2J'],
      {},
      'svcadm: --sha256 darwin-arm64: the checksum must be 64 hexadecimal digits, not "\\u001b[2J"\n',
    ],
    ['an option with no value', ['--base-url'], {}, 'svcadm: --base-url needs a value: <https-url>\n'],
    ['an unknown option', ['--base'], {}, 'svcadm: unknown option "--base" (npm run release -- --help)\n'],
    ['an argument', ['linux'], {}, 'svcadm: unexpected argument "linux" (npm run release -- --help)\n'],
    [
      'a SOURCE_DATE_EPOCH that is not seconds',
      [],
      { SOURCE_DATE_EPOCH: '2026-11-28' },
      'svcadm: SOURCE_DATE_EPOCH "2026-11-28": must be whole seconds since 1970\n',
    ],
  ];
  it.each(cases)('%s: one line, exit 2, nothing built', async (_, args, env, line) => {
    const r = await release(args, env);
    expect(r).toEqual({ code: 2, stdout: '', stderr: line });
  });

  it('--help prints the usage, exit 0', async () => {
    const r = await release(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(
      'Usage: npm run release -- [--base-url <https-url>] [--sha256 <target>=<sha256>]...',
    );
  });
});
