import { UsageError } from '../errors.js';
import { ensurePrivateDir, profilesFile } from './paths.js';
import { isRecord, readJsonFile } from './private-file.js';

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
  profiles: Record<string, Profile>;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name '${name}': use letters, digits, '-' and '_' (at most 63)`);
  }
  return name;
}

/** The profile called `name`, looked up as an own key (`toString` or `__proto__` are not profiles). */
export function profileNamed(store: ProfileFile, name: string): Profile | undefined {
  return Object.hasOwn(store.profiles, name) ? store.profiles[name] : undefined;
}

/**
 * Reads the store with a plain JSON read: every command needs it, and loading conf costs more than the rest of a
 * command (see README, design notes). Writes go through conf.
 */
export function readProfiles(dir: string): ProfileFile {
  const raw = readJsonFile(profilesFile(dir));
  if (raw === undefined) return { profiles: {} };
  if (!isRecord(raw) || (raw.profiles !== undefined && !isRecord(raw.profiles))) {
    throw new UsageError(`${profilesFile(dir)} is not a svcadm profile store`, 'repair or delete the file');
  }
  const profiles: Record<string, Profile> = Object.create(null);
  for (const [name, value] of Object.entries(raw.profiles ?? {})) {
    if (isRecord(value) && typeof value.domain === 'string' && typeof value.clientId === 'string') {
      profiles[name] = value as unknown as Profile;
    }
  }
  return { ...(typeof raw.current === 'string' ? { current: raw.current } : {}), profiles };
}

type ConfStore = {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
};

async function openStore(dir: string): Promise<ConfStore> {
  ensurePrivateDir(dir);
  const { default: Conf } = await import('conf');
  return new Conf<Record<string, unknown>>({
    projectName: 'svcadm',
    cwd: dir,
    configName: 'profiles',
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
    defaults: { profiles: {} },
  });
}

export async function saveProfile(dir: string, name: string, profile: Profile, makeCurrent: boolean): Promise<void> {
  const store = await openStore(dir);
  const profiles = (store.get('profiles') as Record<string, Profile> | undefined) ?? {};
  store.set('profiles', { ...profiles, [name]: profile });
  if (makeCurrent || typeof store.get('current') !== 'string') store.set('current', name);
}

export async function setCurrentProfile(dir: string, name: string): Promise<void> {
  const store = await openStore(dir);
  store.set('current', name);
}

/** Removes a profile; returns the name of the profile that is current afterwards, if any. */
export async function deleteProfile(dir: string, name: string): Promise<string | undefined> {
  const store = await openStore(dir);
  const { [name]: _removed, ...rest } = (store.get('profiles') as Record<string, Profile> | undefined) ?? {};
  store.set('profiles', rest);
  if (store.get('current') === name) store.delete('current');
  const current = store.get('current');
  return typeof current === 'string' ? current : undefined;
}
