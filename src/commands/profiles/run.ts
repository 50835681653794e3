import { resolve } from 'node:path';
import { keyringEntryRemoval } from '../../cli/hints.js';
import type { Invocation } from '../../cli/host.js';
import { type AssertionAlgorithm, type ClientCredential, variablesOverriding } from '../../config/credentials.js';
import type { LockContext } from '../../config/file-lock.js';
import { withoutTrailingLineBreak } from '../../config/line-break.js';
import { profilesFile } from '../../config/paths.js';
import { isRecord } from '../../config/private-file.js';
import { readPrivateKey } from '../../config/private-key.js';
import {
  deleteProfile,
  hasProfileEntry,
  type Profile,
  profileNamed,
  profileNotFound,
  readProfiles,
  replaceProfile,
  saveProfile,
  setCurrentProfile,
  validateProfileName,
} from '../../config/profile-store.js';
import { secretFlagWarning } from '../../config/secret-flag.js';
import { KeyringSecrets, KeyringUnavailable, keyringService, storeSecret } from '../../config/secret-store.js';
import { parseOrigin } from '../../config/tenant.js';
import { interruption, UsageError } from '../../errors.js';
import { cell, type TableSpec } from '../../render/table-model.js';
import { askHidden, readAllStdin } from '../../util/prompt.js';
import type { AddCommand, AddOptions } from './options.js';

/** A value without the trailing line break it was exported with, said under --debug (never the value). */
function withoutLineBreak(inv: Invocation, text: string, where: string): string {
  const { value, stripped } = withoutTrailingLineBreak(text);
  if (stripped) inv.io.trace?.(`removed a trailing line break from ${where}`);
  return value;
}

async function readSecret(inv: Invocation, opts: AddOptions): Promise<string> {
  const { io } = inv.ctx;
  const flag = inv.globals.credentials.clientSecret;
  if (flag !== undefined && opts.clientSecretStdin)
    throw new UsageError('give --client-secret or --client-secret-stdin, not both');
  if (flag !== undefined) {
    inv.io.warn(secretFlagWarning('--client-secret', '--client-secret-stdin'));
    return withoutLineBreak(inv, flag, '--client-secret');
  }
  if (opts.clientSecretStdin) return withoutLineBreak(inv, await readAllStdin(io), 'the secret read from stdin');
  if (inv.globals.prompts && io.stderr.isTTY) return askHidden(io, 'Client secret: ');
  throw new UsageError(
    'no client secret given',
    'pass it with --client-secret-stdin (or run on a terminal to be asked)',
  );
}

/** The private key given for a profile, by absolute path, checked to be a private PEM key now. */
function assertionKey(inv: Invocation, opts: AddOptions): { keyFile: string; algorithm: AssertionAlgorithm } {
  const { clientAssertionKey, clientAssertionAlg, clientSecret } = inv.globals.credentials;
  if (clientAssertionKey === undefined) throw new Error('no key given');
  if (clientSecret !== undefined || opts.clientSecretStdin) {
    throw new UsageError('give a client secret or a private key (--client-assertion-key), not both');
  }
  const keyFile = resolve(clientAssertionKey);
  readPrivateKey(keyFile);
  return { keyFile, algorithm: (clientAssertionAlg as AssertionAlgorithm | undefined) ?? 'RS256' };
}

export async function runProfilesAdd(inv: Invocation, command: AddCommand): Promise<void> {
  const { name: rawName, ...opts } = command;
  const name = validateProfileName(rawName);
  const { domain, clientId, authUrl, audience, clientAssertionKey } = inv.globals.credentials;
  if (domain === undefined) throw new UsageError('profiles add needs --domain');
  if (clientId === undefined || clientId.trim() === '') throw new UsageError('profiles add needs --client-id');
  withoutLineBreak(inv, clientId, '--client-id');
  const origin = parseOrigin(domain);
  const authOrigin = authUrl === undefined ? undefined : parseOrigin(authUrl, '--auth-url');
  let credential: ClientCredential;
  if (clientAssertionKey !== undefined) credential = { kind: 'assertion', ...assertionKey(inv, opts) };
  else {
    const secret = await readSecret(inv, opts);
    if (secret.trim() === '') throw new UsageError('the client secret is empty');
    credential = { kind: 'secret', secret };
  }
  const dir = inv.services.configDir;
  const profile: Profile = {
    domain: origin,
    clientId: clientId.trim(),
    ...(authOrigin ? { authUrl: authOrigin } : {}),
    ...(audience ? { audience } : {}),
  };
  if (opts.verify) {
    const tokens = inv.services.clientTokens({
      kind: 'client',
      clientId: profile.clientId,
      credential,
      tokenUrl: `${authOrigin ?? origin}/oauth/token`,
      audience: audience ?? `${origin}/api/v2/`,
    });
    const token = await tokens.current();
    inv.io.notice(`Verified: the token service issued a token with ${token.scopes.length} scope(s).`);
  }
  const before = profileNamed(readProfiles(dir), name);
  /** Where the secret went, unless the warning about a missing keyring said it already. */
  let secretWent = '';
  if (credential.kind === 'secret') {
    let warned = false;
    const { fields, store } = storeSecret(dir, inv.ctx.env, name, credential.secret, {
      insecure: opts.insecureStorage === true,
      notice: (line) => {
        warned = true;
        inv.io.warn(line);
      },
    });
    Object.assign(profile, fields);
    if (!warned) {
      secretWent = ` The client secret is stored in ${store.where}${store.location === 'file' ? ' (mode 0600)' : ''}.`;
    }
  } else {
    Object.assign(profile, { clientAssertionKey: credential.keyFile, clientAssertionAlg: credential.algorithm });
  }
  const existed = await saveProfile(dir, storeLock(inv), name, profile, opts.use === true);
  // A secret the profile kept in the keyring before, and no longer does, is not left behind there.
  if (before?.clientSecretIn === 'keyring' && profile.clientSecretIn !== 'keyring') forgetKeyringSecret(inv, name);
  const current = readProfiles(dir).current === name;
  inv.io.notice(
    `${existed ? 'Updated' : 'Saved'} profile '${name}' for ${origin} (client ${profile.clientId})${current ? '; it is the current profile' : ''}.${secretWent}`,
  );
}

/** Removes a profile's secret from the OS keyring; one warning when the keyring cannot be reached. */
function forgetKeyringSecret(inv: Invocation, name: string): void {
  try {
    new KeyringSecrets(inv.services.configDir, inv.ctx.env).remove(name);
  } catch (err) {
    if (!(err instanceof KeyringUnavailable)) throw err;
    const removal = keyringEntryRemoval(keyringService(inv.services.configDir), name);
    inv.io.warn(
      `the client secret of profile '${name}' is still in the OS keyring (${err.message}): remove it with \`${removal}\``,
    );
  }
}

export async function runProfilesMigrateSecrets(inv: Invocation, names: string[]): Promise<void> {
  const dir = inv.services.configDir;
  const store = readProfiles(dir);
  for (const name of names) requireProfile(inv, name);
  const chosen = names.length > 0 ? names : Object.keys(store.profiles);
  const keyring = new KeyringSecrets(dir, inv.ctx.env);
  let moved = 0;
  for (const name of chosen) {
    const record = profileNamed(store, name);
    if (record?.clientSecret === undefined) continue;
    try {
      keyring.write(name, record.clientSecret);
    } catch (err) {
      if (!(err instanceof KeyringUnavailable)) throw err;
      throw new UsageError(
        `no usable OS keyring: ${err.message}`,
        `${moved} secret(s) moved; the rest stay in ${profilesFile(dir)}`,
      );
    }
    // The record changes only if it still holds the secret that was moved (another svcadm may have changed it).
    await replaceProfile(dir, storeLock(inv), name, record, (now) => {
      const { clientSecret: _moved, ...rest } = now;
      return { ...rest, clientSecretIn: 'keyring' };
    });
    moved++;
    inv.io.notice(`Moved the client secret of profile '${name}' into the OS keyring.`);
  }
  if (moved === 0) inv.io.notice('No client secret is kept in the profile file: nothing to move.');
}

/** The profile store's lock waits on the invocation's clock, and Ctrl-C ends the wait. */
function storeLock(inv: Invocation): LockContext {
  const { clock, interrupt } = inv.ctx;
  return {
    clock,
    sleep: async (ms) => {
      await clock.sleep(ms, interrupt);
      if (interrupt.aborted) throw interruption(interrupt);
    },
    trace: inv.io.trace,
  };
}

function profileSummary(name: string, profile: Profile, current: string | undefined) {
  return {
    name,
    current: name === current,
    domain: profile.domain,
    client_id: profile.clientId,
    client_secret: profile.clientSecret || profile.clientSecretIn ? 'stored' : 'none',
    ...(profile.clientSecret || profile.clientSecretIn
      ? { client_secret_in: profile.clientSecretIn === 'keyring' ? 'keyring' : 'file' }
      : {}),
    ...(profile.clientAssertionKey
      ? {
          client_assertion_key: profile.clientAssertionKey,
          client_assertion_alg: profile.clientAssertionAlg ?? 'RS256',
        }
      : {}),
    auth_url: profile.authUrl ?? profile.domain,
    audience: profile.audience ?? `${profile.domain}/api/v2/`,
  };
}

export async function runProfilesList(inv: Invocation): Promise<void> {
  const store = readProfiles(inv.services.configDir);
  const rows = Object.entries(store.profiles).map(([name, p]) => profileSummary(name, p, store.current));
  await inv.out.page(
    rows,
    rows,
    (): TableSpec => ({
      kind: 'list',
      columns: [
        { name: 'current', fit: 'detail', rank: 1 },
        { name: 'name', fit: 'key' },
        { name: 'domain', fit: 'detail', rank: 3 },
        { name: 'client id', fit: 'detail', rank: 2 },
      ],
      rows: rows.map((r) => [cell(r.current ? '*' : ' '), cell(r.name), cell(r.domain), cell(r.client_id)]),
    }),
    { empty: 'No profiles yet: add one with `svcadm profiles add <name> --domain <tenant> --client-id <id>`.' },
  );
  // Which store was read (SVCADM_CONFIG_DIR, or the platform's config folder): on stderr, so stdout stays the list.
  inv.io.notice(`Config folder: ${inv.services.configDir}`);
}

function requireProfile(inv: Invocation, name: string): Profile {
  validateProfileName(name);
  const store = readProfiles(inv.services.configDir);
  const profile = profileNamed(store, name);
  if (!profile) {
    throw profileNotFound(
      name,
      Object.keys(store.profiles),
      inv.services.configDir,
      'add one with `svcadm profiles add`',
    );
  }
  return profile;
}

export async function runProfilesUse(inv: Invocation, name: string): Promise<void> {
  requireProfile(inv, name);
  await setCurrentProfile(inv.services.configDir, storeLock(inv), name);
  inv.io.notice(`Now using profile '${name}'.`);
  const overriding = variablesOverriding(inv.ctx.env, name);
  // A warning, but not under -q: a quiet run prints nothing it was not asked for (every-command smoke).
  if (overriding.length > 0 && !inv.globals.quiet) {
    const verb = overriding.length === 1 ? 'overrides' : 'override';
    inv.io.warn(
      `${overriding.join(', ')} in the environment ${verb} profile '${name}': \`unset ${overriding.join(' ')}\` to use it`,
    );
  }
}

export async function runProfilesShow(inv: Invocation, name: string | undefined): Promise<void> {
  const store = readProfiles(inv.services.configDir);
  const chosen = name ?? inv.globals.credentials.profile ?? inv.ctx.env.SVCADM_PROFILE ?? store.current;
  if (chosen === undefined)
    throw new UsageError('no current profile', 'add one with `svcadm profiles add`, or name one');
  const summary = profileSummary(chosen, requireProfile(inv, chosen), store.current);
  await inv.out.one(summary, () => ({
    kind: 'detail',
    title: `Profile ${summary.name}${summary.current ? ' (current)' : ''}`,
    rows: [
      ['domain', cell(summary.domain)],
      ['client id', cell(summary.client_id)],
      summary.client_assertion_key
        ? ['private key', cell(`${summary.client_assertion_key} (${summary.client_assertion_alg})`)]
        : ['client secret', cell(secretText(summary.client_secret_in, inv.services.configDir))],
      ['token service', cell(summary.auth_url)],
      ['audience', cell(summary.audience)],
    ],
  }));
}

function secretText(location: string | undefined, dir: string): string {
  if (location === 'keyring') return '(in the OS keyring, not shown)';
  return location === 'file' ? `(in ${profilesFile(dir)}, not shown)` : '(none)';
}

export async function runProfilesRemove(inv: Invocation, name: string): Promise<void> {
  // A profile the store cannot use (edited by hand) can still be removed.
  if (!hasProfileEntry(inv.services.configDir, validateProfileName(name))) requireProfile(inv, name);
  const { removed, current } = await deleteProfile(inv.services.configDir, storeLock(inv), name);
  if (isRecord(removed) && removed.clientSecretIn === 'keyring') forgetKeyringSecret(inv, name);
  inv.io.notice(`Removed profile '${name}'.${current === undefined ? ' No profile is current now.' : ''}`);
}
