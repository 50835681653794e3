import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real Secret Service for keyring tests: a private D-Bus session bus and gnome-keyring-daemon on it, with a new
 * login keyring unlocked by a known password, in a throw-away home. Without the programs it needs, tests that use
 * it are skipped with the missing program in their title; with SVCADM_TEST_REQUIRE_ALL=1 (CI) they run and fail.
 */
const PROGRAMS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'] as const;

function missingProgram(): string | undefined {
  if (process.platform !== 'linux') return 'the Secret Service tests run on Linux';
  for (const program of PROGRAMS) {
    if (spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status !== 0) return program;
  }
  return undefined;
}

export const secretServiceMissing = missingProgram();
export const skipWithoutSecretService =
  secretServiceMissing !== undefined && process.env.SVCADM_TEST_REQUIRE_ALL !== '1';
export const needsSecretService = secretServiceMissing
  ? ` (skipped: needs ${secretServiceMissing}; apt-get install gnome-keyring dbus-x11 libsecret-tools)`
  : '';

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS and the home the keyring lives in, for svcadm and secret-tool. */
  env: Record<string, string>;
  /** What secret-tool finds under these attributes ('' when nothing). */
  lookup(service: string, username: string): string;
  /**
   * Locks the login collection, as a screen lock does: every call then asks for an unlock prompt, which no one
   * answers here (the binding reports it dismissed).
   */
  lock(): void;
  stop(): void;
}

/** Starts the bus and the keyring daemon; ready once a probe secret can be stored (the first try, as a rule). */
export async function startSecretService(): Promise<SecretService> {
  const home = mkdtempSync(join(tmpdir(), 'svcadm-keyring-'));
  const base = { PATH: process.env.PATH ?? '', HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home };
  // A bus without service activation: a keyring daemon it started by itself (with no unlocked login keyring)
  // could win the race with ours.
  const config = join(home, 'bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${home}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`,
  );
  const [address = '', busPid = ''] = execFileSync(
    'dbus-daemon',
    [`--config-file=${config}`, '--fork', '--nopidfile', '--print-address=1', '--print-pid=1'],
    { env: base, encoding: 'utf8' },
  )
    .trim()
    .split('\n');
  const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address };
  // --unlock reads the password on stdin and creates the login keyring with it.
  const daemon = spawn('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--foreground'], {
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  daemon.stdin?.end('svcadm-test-password');
  const store = () =>
    new Promise<number | null>((resolve) => {
      const probe = spawn('secret-tool', ['store', '--label=probe', 'service', 'svcadm-probe', 'username', 'probe'], {
        env,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      probe.stdin?.end('probe');
      probe.on('exit', resolve);
    });
  // Until the daemon owns its name, a store fails at once (nothing can be activated): this waits on that, no timer.
  for (let attempt = 0; (await store()) !== 0; attempt++) {
    if (attempt >= 500) throw new Error('the Secret Service did not come up');
  }
  return {
    env,
    lookup: (service, username) =>
      spawnSync('secret-tool', ['lookup', 'service', service, 'username', username], { env, encoding: 'utf8' }).stdout,
    lock: () => {
      execFileSync(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.secrets',
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.Lock',
          'array:objpath:/org/freedesktop/secrets/collection/login',
        ],
        { env, stdio: 'ignore' },
      );
    },
    stop: () => {
      daemon.kill('SIGTERM');
      process.kill(Number(busPid), 'SIGTERM');
    },
  };
}
