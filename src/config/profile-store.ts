import { UsageError } from '../errors.js';
import { neutralize } from '../render/sanitize.js';
import { profilesFile } from './paths.js';
import { ensurePrivateDir, isRecord, readPrivateJson, writePrivateFile } from './private-file.js';

export interface Profile {
  domain: string;
  clientId: string;
  clientSecret?: string;
  /** Path of the client's private key (PEM, mode 0600): the key itself is never stored here. */
  clientAssertionKey?: string;
  clientAssertionAlg?: string;
  authUrl?: string;
  audience?: string;
}

export interface ProfileFile {
  current?: string;
  /** Only the profiles whose names are valid; a record without a prototype (`toString` is no profile). */
  profiles: Record<string, Profile>;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

export function isProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}

export function validateProfileName(name: string): string {
  if (!isProfileName(name)) {
    throw new UsageError(`invalid profile name '${neutralize(name)}': use letters, digits, '-' and '_' (at most 63)`);
  }
  return name;
}

/** The profile called `name`, looked up as an own key (`toString` or `__proto__` are not profiles). */
export function profileNamed(store: ProfileFile, name: string): Profile | undefined {
  return Object.hasOwn(store.profiles, name) ? store.profiles[name] : undefined;
}

/** The store as it is on disk (other fields kept for whoever wrote them), checked to be a store. */
function readStore(dir: string): Record<string, unknown> {
  const raw = readPrivateJson(profilesFile(dir));
  if (raw === undefined) return {};
  if (!isRecord(raw) || (raw.profiles !== undefined && !isRecord(raw.profiles))) {
    throw new UsageError(
      `${profilesFile(dir)} is not a svcadm profile store`,
      'repair or delete the file',
      'config_invalid',
    );
  }
  return raw;
}

/**
 * Reads the store with a plain JSON read: every command needs it. Names that are not profile names (someone edited
 * the file) are left out, so nothing downstream, the completion scripts included, ever sees one.
 */
export function readProfiles(dir: string): ProfileFile {
  const raw = readStore(dir);
  const profiles: Record<string, Profile> = Object.create(null);
  for (const [name, value] of Object.entries(raw.profiles ?? {})) {
    if (
      isProfileName(name) &&
      isRecord(value) &&
      typeof value.domain === 'string' &&
      typeof value.clientId === 'string'
    ) {
      profiles[name] = value as unknown as Profile;
    }
  }
  const current = typeof raw.current === 'string' && raw.current in profiles ? raw.current : undefined;
  return { ...(current === undefined ? {} : { current }), profiles };
}

/** Reads the store, lets `change` edit it, and writes it back (privately, never through a symlink). */
function updateStore(dir: string, change: (store: ProfileFile) => void): ProfileFile {
  ensurePrivateDir(dir);
  const raw = readStore(dir);
  const store = readProfiles(dir);
  change(store);
  const { current: _replaced, ...rest } = raw;
  const next = {
    ...rest,
    ...(store.current === undefined ? {} : { current: store.current }),
    profiles: store.profiles,
  };
  writePrivateFile(profilesFile(dir), `${JSON.stringify(next, null, 2)}\n`);
  return store;
}

export async function saveProfile(dir: string, name: string, profile: Profile, makeCurrent: boolean): Promise<void> {
  updateStore(dir, (store) => {
    store.profiles[validateProfileName(name)] = profile;
    if (makeCurrent || store.current === undefined) store.current = name;
  });
}

export async function setCurrentProfile(dir: string, name: string): Promise<void> {
  updateStore(dir, (store) => {
    store.current = validateProfileName(name);
  });
}

/** Removes a profile; returns the name of the profile that is current afterwards, if any. */
export async function deleteProfile(dir: string, name: string): Promise<string | undefined> {
  return updateStore(dir, (store) => {
    delete store.profiles[name];
    if (store.current === name) delete store.current;
  }).current;
}
