import { join } from 'node:path';
import { nearest } from '../domain/edit-distance.js';
import { CliError, UsageError } from '../errors.js';
import { neutralize } from '../text/sanitize.js';
import { shellWord } from '../util/shell-word.js';
import { acquireLock, type LockContext } from './file-lock.js';
import { profilesFile } from './paths.js';
import { ensurePrivateDir, isRecord, readPrivateJson, writePrivateFile } from './private-file.js';

export interface Profile {
  domain: string;
  clientId: string;
  clientSecret?: string;
  /** Where the secret is when it is not above: `keyring`, the OS credential store (secret-store.ts). */
  clientSecretIn?: 'keyring';
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

/**
 * No profile is called `name`: the error names the store, and its hint the nearest name when it looks like a typo of
 * one (as commands and options get a did-you-mean), then the known names; `none` where there are none.
 */
export function profileNotFound(name: string, known: readonly string[], dir: string, none: string): UsageError {
  const near = nearest(name, known);
  const list = `known profiles: ${known.join(', ')}`;
  const hint = known.length === 0 ? none : near === undefined ? list : `did you mean '${near}'? (${list})`;
  return new UsageError(`no profile named '${neutralize(name)}' in ${dir}`, hint, 'profile_not_found');
}

/** The profile called `name`, looked up as an own key (`toString` or `__proto__` are not profiles). */
export function profileNamed(store: ProfileFile, name: string): Profile | undefined {
  return Object.hasOwn(store.profiles, name) ? store.profiles[name] : undefined;
}

const PROFILE_STORE_LOCK = 'profiles.json.lock';
/** A store update takes milliseconds: a live holder past this is stuck (stopped with Ctrl-Z, say). */
const STORE_LOCK_WAIT_MS = 10_000;
const STORE_LOCK_STALE_MS = 60_000;

/** The optional text fields of a profile, as they are named in the file. */
const OPTIONAL_FIELDS = [
  'clientSecret',
  'clientSecretIn',
  'clientAssertionKey',
  'clientAssertionAlg',
  'authUrl',
  'audience',
] as const;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function invalid(dir: string, what: string): CliError {
  return new CliError('usage', `${profilesFile(dir)}: ${what}`, { reason: 'config_invalid' });
}

function invalidProfile(dir: string, name: string, what: string): CliError {
  return new CliError('usage', `${profilesFile(dir)}: profile '${name}': ${what}`, {
    reason: 'config_invalid',
    subject: name,
  });
}

/** The store as it is on disk (other fields kept for whoever wrote them), checked to be a store. */
function readStore(dir: string): Record<string, unknown> {
  const raw = readPrivateJson(profilesFile(dir));
  if (raw === undefined) return {};
  if (!isRecord(raw)) throw invalid(dir, `the store must be a JSON object, not ${describe(raw)}`);
  if (raw.profiles !== undefined && !isRecord(raw.profiles)) {
    throw invalid(dir, `field profiles must be an object, not ${describe(raw.profiles)}`);
  }
  if (raw.current !== undefined && typeof raw.current !== 'string') {
    throw invalid(dir, `field current must be a string, not ${describe(raw.current)}`);
  }
  return raw;
}

/** A profile as it was read, checked field by field: a hand-edited store is named, profile and field, when wrong. */
function checkedProfile(dir: string, name: string, value: unknown): Profile {
  if (!isRecord(value)) throw invalidProfile(dir, name, `it must be an object, not ${describe(value)}`);
  for (const field of ['domain', 'clientId'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') {
      const found = value[field] === undefined ? 'it is missing' : `not ${describe(value[field])}`;
      throw invalidProfile(dir, name, `field ${field} must be a non-empty string, ${found}`);
    }
  }
  for (const field of OPTIONAL_FIELDS) {
    if (value[field] !== undefined && typeof value[field] !== 'string') {
      throw invalidProfile(dir, name, `field ${field} must be a string, not ${describe(value[field])}`);
    }
  }
  if (value.clientSecretIn !== undefined && value.clientSecretIn !== 'keyring') {
    throw invalidProfile(
      dir,
      name,
      `field clientSecretIn must be "keyring", not '${neutralize(String(value.clientSecretIn))}'`,
    );
  }
  return value as unknown as Profile;
}

/**
 * Reads the store with a plain JSON read: every command needs it, and every profile in it is checked. Names that are
 * not profile names (someone edited the file) are left out, so nothing downstream, the completion scripts included,
 * ever sees one.
 */
export function readProfiles(dir: string): ProfileFile {
  const raw = readStore(dir);
  const profiles: Record<string, Profile> = Object.create(null);
  for (const [name, value] of Object.entries(raw.profiles ?? {})) {
    if (isProfileName(name)) profiles[name] = checkedProfile(dir, name, value);
  }
  const current = typeof raw.current === 'string' && raw.current in profiles ? raw.current : undefined;
  return { ...(current === undefined ? {} : { current }), profiles };
}

/** Whether the store has an entry called `name`, whatever it holds (a broken profile can still be removed). */
export function hasProfileEntry(dir: string, name: string): boolean {
  const profiles = readStore(dir).profiles;
  return isRecord(profiles) && Object.hasOwn(profiles, name);
}

/**
 * Reads the store, lets `change` edit its profiles (as they are on disk), and writes it back (privately, never
 * through a symlink), holding the store's lock throughout: parallel `profiles add` never lose one another's writes.
 */
async function updateStore(
  dir: string,
  lock: LockContext,
  change: (profiles: Record<string, unknown>, store: { current?: string | undefined }) => void,
): Promise<string | undefined> {
  const file = profilesFile(dir);
  const cannotWrite = (why: string) => new UsageError(`cannot write the profile store ${file}: ${why}`);
  try {
    ensurePrivateDir(dir);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw cannotWrite((err as Error).message);
  }
  const lockPath = join(dir, PROFILE_STORE_LOCK);
  const outcome = await acquireLock(lockPath, lock, {
    name: 'the profile store lock',
    pollMs: 50,
    waitMs: STORE_LOCK_WAIT_MS,
    staleMs: STORE_LOCK_STALE_MS,
  });
  if (outcome.kind === 'unavailable') throw cannotWrite(outcome.why);
  if (outcome.kind === 'busy') {
    throw new UsageError(
      `the profile store ${file} is locked by process ${outcome.pid ?? '?'}`,
      `if no svcadm is running, delete ${shellWord(lockPath)}`,
    );
  }
  try {
    const raw = readStore(dir);
    const profiles: Record<string, unknown> = Object.assign(Object.create(null), raw.profiles ?? {});
    const store: { current?: string | undefined } = typeof raw.current === 'string' ? { current: raw.current } : {};
    change(profiles, store);
    const { current: _replaced, profiles: _profiles, ...rest } = raw;
    const current = store.current !== undefined && Object.hasOwn(profiles, store.current) ? store.current : undefined;
    const next = { ...rest, ...(current === undefined ? {} : { current }), profiles };
    try {
      writePrivateFile(file, `${JSON.stringify(next, null, 2)}\n`, 'the profile store');
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw cannotWrite((err as Error).message);
    }
    return current;
  } finally {
    outcome.release();
  }
}

/** Saves a profile; returns whether it replaced one of that name. */
export async function saveProfile(
  dir: string,
  lock: LockContext,
  name: string,
  profile: Profile,
  makeCurrent: boolean,
): Promise<boolean> {
  let existed = false;
  await updateStore(dir, lock, (profiles, store) => {
    existed = Object.hasOwn(profiles, validateProfileName(name));
    profiles[name] = profile;
    if (makeCurrent || store.current === undefined || !Object.hasOwn(profiles, store.current)) store.current = name;
  });
  return existed;
}

export async function setCurrentProfile(dir: string, lock: LockContext, name: string): Promise<void> {
  await updateStore(dir, lock, (profiles, store) => {
    if (!Object.hasOwn(profiles, validateProfileName(name))) throw new UsageError(`no profile named '${name}'`);
    store.current = name;
  });
}

/** Removes a profile; returns the profile as it was (if any) and the name of the profile current afterwards. */
export async function deleteProfile(
  dir: string,
  lock: LockContext,
  name: string,
): Promise<{ removed: unknown; current: string | undefined }> {
  let removed: unknown;
  const current = await updateStore(dir, lock, (profiles, store) => {
    removed = profiles[name];
    delete profiles[name];
    if (store.current === name) store.current = undefined;
  });
  return { removed, current };
}

/**
 * Replaces the record of `name` with `change(record)`, only while it is still `expected` (compared as JSON): a
 * record another svcadm changed meanwhile is left as it is. Returns whether it was replaced.
 */
export async function replaceProfile(
  dir: string,
  lock: LockContext,
  name: string,
  expected: Profile,
  change: (record: Profile) => Profile,
): Promise<boolean> {
  let replaced = false;
  await updateStore(dir, lock, (profiles) => {
    const now = profiles[name];
    if (JSON.stringify(now) !== JSON.stringify(expected)) return;
    profiles[name] = change(now as Profile);
    replaced = true;
  });
  return replaced;
}
