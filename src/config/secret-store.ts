import { createRequire } from 'node:module';
import type { Env } from '../context.js';
import { AuthError } from '../errors.js';
import { childRoleCommand, isSingleExecutable } from '../util/child-role.js';
import { packageVersion } from '../version.js';
import { addonFolder, embeddedAddon, KeyringAddonRefused, placeAddon } from './keyring-addon.js';
import { profilesFile } from './paths.js';
import type { Profile } from './profile-store.js';

/**
 * Where a profile's client secret lives: the OS credential store (macOS Keychain, Windows Credential Manager, the
 * Secret Service on Linux) through @napi-rs/keyring, or the profile store itself (a 0600 file), as before. Private
 * keys are files either way: the profile stores their path.
 */
export type SecretLocation = 'keyring' | 'file';

/** What a profile record keeps of its secret: the secret itself (file), or where it is (keyring). */
export type SecretFields = Pick<Profile, 'clientSecret' | 'clientSecretIn'>;

export interface SecretStore {
  readonly location: SecretLocation;
  /** Where the secret is, in words, for `profiles show`, `auth status` and notices. */
  readonly where: string;
  /** Stores the secret of `profile`; returns the fields its record keeps. Throws KeyringUnavailable. */
  write(profile: string, secret: string): SecretFields;
  /** The secret of `profile`, whose record is `record`. */
  read(profile: string, record: Profile): string | undefined;
  /** Forgets the secret of `profile` (a file secret goes with its record). Throws KeyringUnavailable. */
  remove(profile: string): void;
}

/**
 * The keyring cannot be used here; `locked` when one exists but refused or did not answer (locked, an unlock prompt
 * no one answers, a hung daemon), as opposed to no keyring at all (no D-Bus session, no Secret Service, no module).
 */
export class KeyringUnavailable extends Error {
  constructor(
    message: string,
    readonly locked = false,
  ) {
    super(message);
  }
}

/** What the platforms' keyrings say when they are locked (Secret Service, macOS Keychain, Windows). */
const LOCKED = /\block(ed)?\b|unlock|prompt was dismissed|interaction is not allowed/i;

/**
 * Every keyring call is bounded: the binding is synchronous and may wait forever on a locked keyring or a D-Bus that
 * does not answer (measured: the entry's constructor alone blocked 40 s and more on a silent bus), so it runs in a
 * child process (svcadm's `keyring-call` role: src/config/keyring-call.ts) that is killed after this long. A call
 * takes about 60 ms (a Node start and one D-Bus round trip).
 */
export const KEYRING_TIMEOUT_MS = 5_000;

type KeyringRequest = { op: 'read' } | { op: 'write'; secret: string } | { op: 'remove' };

/**
 * The binding the child loads: the optional dependency from npm; inside the single executable, its embedded copy
 * written to svcadm's cache folder (the child checks it again before it loads it).
 */
function bindingPath(env: Env): string {
  if (isSingleExecutable()) {
    const addon = embeddedAddon();
    if (addon === undefined) throw new KeyringUnavailable('this svcadm executable carries no keyring module');
    try {
      return placeAddon(addonFolder(env, packageVersion()), addon.bytes, addon.sha256);
    } catch (err) {
      if (err instanceof KeyringAddonRefused) throw new KeyringUnavailable(err.message);
      throw err;
    }
  }
  try {
    return createRequire(import.meta.url).resolve('@napi-rs/keyring');
  } catch {
    throw new KeyringUnavailable('the keyring module (@napi-rs/keyring) is not installed');
  }
}

/** The first line of what the binding said, without its layers of "caused by". */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/^Platform failure: /, '').slice(0, 200);
}

function callKeyring(env: Env, service: string, account: string, request: KeyringRequest): unknown {
  if (process.platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) {
    throw new KeyringUnavailable('no Secret Service: DBUS_SESSION_BUS_ADDRESS is not set');
  }
  // node:child_process is loaded here, for the one keyring call, not at every start-up.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const call = childRoleCommand('keyring-call', [bindingPath(env)]);
  const child = spawnSync(call.file, call.args, {
    input: JSON.stringify({ service, account, ...request }),
    env: { ...env, NODE_OPTIONS: '' },
    timeout: KEYRING_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 1024 * 1024,
    encoding: 'utf8',
  });
  if (child.error && (child.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    throw new KeyringUnavailable(
      `the OS keyring did not answer within ${KEYRING_TIMEOUT_MS / 1000} s (is it locked?)`,
      true,
    );
  }
  if (child.error) throw new KeyringUnavailable(`the OS keyring could not be asked: ${child.error.message}`);
  let answer: { ok?: unknown; value?: unknown; message?: unknown };
  try {
    answer = JSON.parse(child.stdout) as typeof answer;
  } catch {
    throw new KeyringUnavailable(`the OS keyring call ended without an answer (exit ${child.status ?? child.signal})`);
  }
  if (answer.ok !== true) {
    const said = firstLine(String(answer.message)).replace(/^Couldn't access platform storage: /, '');
    if (LOCKED.test(said)) throw new KeyringUnavailable(`the OS keyring is locked (${said})`, true);
    throw new KeyringUnavailable(said);
  }
  return answer.value;
}

/** One keyring entry per profile and config folder: two folders (SVCADM_CONFIG_DIR) never share a secret. */
export function keyringService(dir: string): string {
  return `svcadm ${dir}`;
}

export class KeyringSecrets implements SecretStore {
  readonly location = 'keyring';
  readonly where = 'the OS keyring';
  readonly #service: string;

  constructor(
    dir: string,
    private readonly env: Env,
  ) {
    this.#service = keyringService(dir);
  }

  write(profile: string, secret: string): SecretFields {
    callKeyring(this.env, this.#service, profile, { op: 'write', secret });
    return { clientSecretIn: 'keyring' };
  }

  read(profile: string): string | undefined {
    let value: unknown;
    try {
      value = callKeyring(this.env, this.#service, profile, { op: 'read' });
    } catch (err) {
      if (!(err instanceof KeyringUnavailable)) throw err;
      throw new AuthError(`cannot read the client secret of profile '${profile}' from the OS keyring: ${err.message}`, {
        reason: 'keyring_unavailable',
      });
    }
    if (typeof value === 'string' && value !== '') return value;
    throw new AuthError(`the OS keyring holds no client secret for profile '${profile}'`, {
      hint: `save it again: svcadm profiles add ${profile} … --client-secret-stdin`,
    });
  }

  remove(profile: string): void {
    callKeyring(this.env, this.#service, profile, { op: 'remove' });
  }
}

/** Today's store: the secret inside the profile store, a 0600 file in a 0700 folder. */
export class FileSecrets implements SecretStore {
  readonly location = 'file';
  readonly where: string;

  constructor(dir: string) {
    this.where = profilesFile(dir);
  }

  write(_profile: string, secret: string): SecretFields {
    return { clientSecret: secret };
  }

  read(_profile: string, record: Profile): string | undefined {
    return record.clientSecret;
  }

  remove(): void {
    // The secret goes with the profile's record.
  }
}

/** Where the secret of a saved profile lives (undefined: it has none, a private key perhaps). */
export function secretStoreOf(record: Profile, dir: string, env: Env): SecretStore | undefined {
  if (record.clientSecretIn === 'keyring') return new KeyringSecrets(dir, env);
  return record.clientSecret ? new FileSecrets(dir) : undefined;
}

/**
 * Stores a new secret: in the OS keyring where there is one, else (or with `--insecure-storage`) in the file, said
 * with `notice` (one line on stderr) when there is no keyring. A keyring that is there but locked or silent is not
 * "no keyring": the secret is not put in the file without `--insecure-storage` (README, "Where secrets live").
 */
export function storeSecret(
  dir: string,
  env: Env,
  profile: string,
  secret: string,
  options: { insecure: boolean; notice: (line: string) => void },
): { fields: SecretFields; store: SecretStore } {
  const file = new FileSecrets(dir);
  if (!options.insecure) {
    const keyring = new KeyringSecrets(dir, env);
    try {
      return { fields: keyring.write(profile, secret), store: keyring };
    } catch (err) {
      if (!(err instanceof KeyringUnavailable)) throw err;
      if (err.locked) {
        throw new AuthError(
          `cannot store the client secret of profile '${profile}' in the OS keyring: ${err.message}`,
          {
            reason: 'keyring_unavailable',
            subject: file.where,
          },
        );
      }
      options.notice(`no usable OS keyring (${err.message}): the client secret is stored in ${file.where} (mode 0600)`);
    }
  }
  return { fields: file.write(profile, secret), store: file };
}
