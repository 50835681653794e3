import type { Env } from '../context.js';
import { AuthError, UsageError } from '../errors.js';
import type { CredentialFlags } from '../global-options.js';
import { type Profile, readProfiles } from './profile-store.js';
import { parseOrigin } from './tenant.js';

export type AuthMethod =
  | { kind: 'token'; token: string }
  | { kind: 'client'; clientId: string; clientSecret: string; tokenUrl: string; audience: string };

export interface Credentials {
  /** `https://tenant.example.com` */
  origin: string;
  /** `https://tenant.example.com/api/v2` */
  apiBase: string;
  profileName: string | undefined;
  auth: AuthMethod;
}

const ADD_PROFILE_HINT =
  'run `svcadm profiles add <name> --domain <tenant> --client-id <id>`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET';

/** Picks the profile a command runs with: -p, SVCADM_PROFILE, else the current one. */
export function selectProfile(
  opts: CredentialFlags,
  env: Env,
  dir: string,
): { name: string | undefined; profile: Profile | undefined } {
  const explicit = opts.profile ?? env.SVCADM_PROFILE;
  const store = readProfiles(dir);
  if (explicit !== undefined && explicit !== '') {
    const profile = store.profiles[explicit];
    if (!profile) {
      const known = Object.keys(store.profiles);
      throw new UsageError(
        `no profile named '${explicit}'`,
        known.length ? `known profiles: ${known.join(', ')}` : ADD_PROFILE_HINT,
      );
    }
    return { name: explicit, profile };
  }
  const name = store.current;
  return { name, profile: name === undefined ? undefined : store.profiles[name] };
}

/**
 * Resolves tenant and credentials, field by field: flag > environment > selected profile > current profile.
 * A profile's client credentials are used only for that profile's own tenant, so a secret never goes to a domain
 * it was not saved for.
 */
export function resolveCredentials(opts: CredentialFlags, env: Env, dir: string): Credentials {
  const pick = (flag: string | undefined, envName: string): string | undefined => {
    if (flag !== undefined) return flag;
    const value = env[envName];
    return value === undefined || value === '' ? undefined : value;
  };
  const { name, profile } = selectProfile(opts, env, dir);

  const domainInput = pick(opts.domain, 'SVCADM_DOMAIN') ?? profile?.domain;
  if (domainInput === undefined) throw new AuthError('no tenant configured', { hint: ADD_PROFILE_HINT });
  const origin = parseOrigin(domainInput, opts.domain !== undefined ? '--domain' : 'tenant domain');
  const apiBase = `${origin}/api/v2`;
  const profileApplies = profile !== undefined && safeOrigin(profile.domain) === origin;
  const fromProfile = profileApplies ? profile : undefined;

  const token = pick(opts.token, 'SVCADM_TOKEN');
  if (token !== undefined) {
    if (token.trim() === '') throw new UsageError('the access token is empty');
    return {
      origin,
      apiBase,
      profileName: fromProfile ? name : undefined,
      auth: { kind: 'token', token: token.trim() },
    };
  }

  const clientId = pick(opts.clientId, 'SVCADM_CLIENT_ID') ?? fromProfile?.clientId;
  if (clientId === undefined) {
    throw new AuthError(`no credentials configured for ${origin}`, { hint: ADD_PROFILE_HINT });
  }
  const secretFromProfile = fromProfile && fromProfile.clientId === clientId ? fromProfile.clientSecret : undefined;
  const clientSecret = pick(opts.clientSecret, 'SVCADM_CLIENT_SECRET') ?? secretFromProfile;
  if (clientSecret === undefined || clientSecret === '') {
    throw new AuthError(`no client secret for client ${clientId} on ${origin}`, {
      hint: 'set SVCADM_CLIENT_SECRET, or save it with `svcadm profiles add <name> … --client-secret-stdin`',
    });
  }
  const authInput = pick(opts.authUrl, 'SVCADM_AUTH_URL') ?? fromProfile?.authUrl;
  const authOrigin = authInput === undefined ? origin : parseOrigin(authInput, '--auth-url');
  const audience = pick(opts.audience, 'SVCADM_AUDIENCE') ?? fromProfile?.audience ?? `${apiBase}/`;
  return {
    origin,
    apiBase,
    profileName: fromProfile ? name : undefined,
    auth: { kind: 'client', clientId, clientSecret, tokenUrl: `${authOrigin}/oauth/token/`, audience },
  };
}

function safeOrigin(domain: string): string | undefined {
  try {
    return parseOrigin(domain);
  } catch {
    return undefined;
  }
}
