import { execFile, spawnSync } from 'node:child_process';
import type { CliResult } from './run-cli.js';
import { BIN } from './run-cli.js';

/**
 * Tests of a file system that misbehaves on purpose (a full or read-only tmpfs) need root and `unshare -m`: the
 * mount lives in a mount namespace of the child only, and goes with it. Without them, such tests are skipped with
 * this reason in their title; with SVCADM_TEST_REQUIRE_ALL=1 (CI) they run anyway and fail.
 */
function probe(): string | undefined {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root (mount)';
  const r = spawnSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
  if (r.error) return 'needs the unshare program';
  return r.status === 0 ? undefined : 'unshare -m is not permitted here';
}

export const mountNamespaceMissing: string | undefined = probe();
/** True when the test is to be skipped (its title says why). */
export const skipWithoutMountNamespace =
  mountNamespaceMissing !== undefined && process.env.SVCADM_TEST_REQUIRE_ALL !== '1';
export const needsMountNamespace = mountNamespaceMissing ? ` (skipped: ${mountNamespaceMissing})` : '';

/** A full tmpfs at "$1" (16 KB, filled to the last byte): files can be created there, but nothing written. */
export const FULL_TMPFS =
  'mount -t tmpfs -o size=16k,mode=0700 tmpfs "$1" && (dd if=/dev/zero of="$1/.fill" bs=4096 2>/dev/null || true)';
/** A read-only tmpfs at "$1". */
export const READ_ONLY_TMPFS = 'mount -t tmpfs -o ro,size=16k,mode=0700 tmpfs "$1"';

/**
 * Runs `script` (sh, with "$1" the folder to mount on) in a new mount namespace, then the built svcadm with `argv`
 * (as "$@" after the mount folder). `after` runs once svcadm has ended, still in the namespace (its output goes to
 * stderr after svcadm's, behind a line `--after--`), for a test to look at the mounted folder.
 */
export function runInMountNamespace(
  dir: string,
  script: string,
  argv: string[],
  env: Record<string, string | undefined>,
  after = '',
): Promise<CliResult> {
  const body = `set -e; ${script}; d="$1"; shift; set +e; "$@"; rc=$?; ${after ? `echo --after-- >&2; ${after} >&2;` : ''} exit $rc`;
  return new Promise((resolve) => {
    const child = execFile(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', body, 'sh', dir, process.execPath, BIN, ...argv],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/**
 * Runs the built svcadm, killed after `limitMs` (SIGKILL, code -9): for a test of something that used to hang where
 * no signal but SIGKILL reached it. A timeout here fails the test instead of hanging the suite.
 */
export function runBinLimited(
  argv: string[],
  env: Record<string, string | undefined>,
  limitMs = 20_000,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...argv],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: limitMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error?.killed ? -9 : error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}
