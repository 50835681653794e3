import type { Env } from '../context.js';
import { AuthError, UsageError } from '../errors.js';
import { PROFILE_VARIABLE, CREDENTIAL_VARIABLES as VARIABLES } from './credential-variables.js';
import { withoutTrailingLineBreak } from './line-break.js';
import { type Profile, profileNamed, profileNotFound, readProfiles } from './profile-store.js';
import { type SecretLocation, secretStoreOf } from './secret-store.js';
import { parseOrigin } from './tenant.js';

/** The credential flags, as given (the root options); this module decides what they mean with the environment. */
export interface CredentialFlags {
  readonly profile?: string;
  readonly domain?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientAssertionKey?: string;
  readonly clientAssertionAlg?: string;
  readonly token?: string;
  readonly authUrl?: string;
  readonly audience?: string;
}

/** Algorithms a private-key client may sign its assertions with (the vendor's: RS256, RS384, PS256). */
export const ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'PS256'] as const;
export type AssertionAlgorithm = (typeof ASSERTION_ALGORITHMS)[number];

/** How a client proves itself to the token service: a shared secret, or a JWT signed with its private key. */
export type ClientCredential =
  | { kind: 'secret'; secret: string }
  | { kind: 'assertion'; keyFile: string; algorithm: AssertionAlgorithm };

export type AuthMethod =
  | { kind: 'token'; token: string }
  | { kind: 'client'; clientId: string; credential: ClientCredential; tokenUrl: string; audience: string };

/** Where a value came from: a flag, the environment, a saved profile, or the default. */
export type ValueSource = 'flag' | 'environment' | `profile ${string}` | 'default';

export interface Credentials {
  /** `https://tenant.example.com` */
  origin: string;
  /** `https://tenant.example.com/api/v2` */
  apiBase: string;
  /** The profile whose values are in use, if any. */
  profileName: string | undefined;
  auth: AuthMethod;
  /** Where each value in use came from (`auth status`, and the hints of authentication errors). */
  sources: {
    tenant: ValueSource;
    client?: ValueSource;
    /** The secret, the private key, or the given token. */
    credential: ValueSource;
    tokenUrl?: ValueSource;
    audience?: ValueSource;
  };
  /** Credential variables that were set but not used, because a named profile is taken as a unit. */
  ignoredVariables: string[];
  /** The current profile, when credential variables in use won over it (`credentialNotice`). */
  overriddenProfile?: { name: string; variables: string[] } | undefined;
  /** Where the secret of the profile in use lives, when the credential is that secret. */
  secretStoredIn?: SecretLocation | undefined;
  /** Where a trailing line break was removed from a client id or secret (`SVCADM_CLIENT_SECRET`), for --debug. */
  lineBreaksRemoved: string[];
}

export const ADD_PROFILE_HINT =
  'run `svcadm profiles add <name> --domain <tenant> --client-id <id>`, or set SVCADM_DOMAIN, SVCADM_CLIENT_ID and SVCADM_CLIENT_SECRET';

type Field = keyof typeof VARIABLES;

interface Sourced<T> {
  value: T;
  source: ValueSource;
}

/** The credential variables set (not empty) in `env`: what wins over the current profile, or what -p shuts out. */
export function credentialVariablesSet(env: Env): string[] {
  return Object.values(VARIABLES).filter((v) => (env[v] ?? '') !== '');
}

/**
 * The one line that says credentials in the environment did not simply apply: ignored for a named profile (-p,
 * SVCADM_PROFILE), or used over the current profile. Undefined when there is nothing to say.
 */
export function credentialNotice(credentials: Credentials, named: string | undefined): string | undefined {
  if (credentials.ignoredVariables.length > 0) {
    return `Using profile '${named}' as a whole: ignoring ${credentials.ignoredVariables.join(', ')} from the environment.`;
  }
  const over = credentials.overriddenProfile;
  if (over === undefined) return undefined;
  return `Using ${over.variables.join(', ')} from the environment over the current profile '${over.name}'.`;
}

/**
 * What `profiles use <name>` must say: the variables in `env` that will win over the profile it makes current
 * (SVCADM_PROFILE names another profile; credential variables win field by field).
 */
export function variablesOverriding(env: Env, name: string): string[] {
  const profile = env[PROFILE_VARIABLE];
  if (profile !== undefined && profile !== '' && profile !== name) return [PROFILE_VARIABLE];
  return profile === name ? [] : credentialVariablesSet(env);
}

/** Picks the profile a command runs with: -p, SVCADM_PROFILE, else the current one. */
export function selectProfile(
  opts: CredentialFlags,
  env: Env,
  dir: string,
): { name: string | undefined; profile: Profile | undefined; named: boolean } {
  const explicit = opts.profile ?? env.SVCADM_PROFILE;
  const store = readProfiles(dir);
  if (explicit !== undefined && explicit !== '') {
    const profile = profileNamed(store, explicit);
    if (!profile) throw profileNotFound(explicit, Object.keys(store.profiles), dir, ADD_PROFILE_HINT);
    return { name: explicit, profile, named: true };
  }
  const name = store.current;
  return { name, profile: name === undefined ? undefined : profileNamed(store, name), named: false };
}

function safeOrigin(domain: string): string | undefined {
  try {
    return parseOrigin(domain);
  } catch {
    return undefined;
  }
}

function parseAlgorithm(text: string, source: ValueSource): AssertionAlgorithm {
  const found = ASSERTION_ALGORITHMS.find((alg) => alg === text.trim().toUpperCase());
  if (!found) {
    const what =
      source === 'flag'
        ? '--client-assertion-alg'
        : source === 'environment'
          ? VARIABLES.clientAssertionAlg
          : `the algorithm of ${source}`;
    throw new UsageError(`${what} must be one of ${ASSERTION_ALGORITHMS.join(', ')}, got '${text}'`);
  }
  return found;
}

/**
 * Resolves tenant and credentials (cli.md, revised precedence): flags win; then a profile named with -p or
 * SVCADM_PROFILE, taken as a unit (the credential variables are ignored, and reported); then the environment; then the
 * current profile. A profile's secret or key is used only with that profile's own tenant, client and token service.
 */
export function resolveCredentials(opts: CredentialFlags, env: Env, dir: string): Credentials {
  const { name, profile, named } = selectProfile(opts, env, dir);
  const fromEnv = (field: Field): string | undefined => {
    const value = env[VARIABLES[field]];
    return value === undefined || value === '' ? undefined : value;
  };
  const ignoredVariables = named ? credentialVariablesSet(env) : [];
  /** The variables whose values are in use (without a named profile), in the order of CREDENTIAL_VARIABLES. */
  const usedVariables = new Set<string>();
  const profileSource: ValueSource = `profile ${name ?? ''}`;
  const lineBreaksRemoved: string[] = [];
  /** A client id or secret without the trailing line break it was exported with. */
  const clean = (field: Field, found: Sourced<string>): Sourced<string> => {
    if (field !== 'clientId' && field !== 'clientSecret') return found;
    const { value, stripped } = withoutTrailingLineBreak(found.value);
    if (!stripped) return found;
    const flag = field === 'clientId' ? '--client-id' : '--client-secret';
    const where =
      found.source === 'flag'
        ? flag
        : found.source === 'environment'
          ? VARIABLES[field]
          : `${field} of ${found.source}`;
    lineBreaksRemoved.push(where);
    return { value, source: found.source };
  };
  /** A flag, else (unless a profile is named) the variable. */
  const given = (field: Field): Sourced<string> | undefined => {
    const flag = opts[field as keyof CredentialFlags];
    if (flag !== undefined) return clean(field, { value: flag, source: 'flag' });
    const variable = named ? undefined : fromEnv(field);
    if (variable === undefined) return undefined;
    usedVariables.add(VARIABLES[field]);
    return clean(field, { value: variable, source: 'environment' });
  };
  const fromProfile = (value: string | undefined): Sourced<string> | undefined =>
    value === undefined ? undefined : { value, source: profileSource };

  const domain = given('domain') ?? fromProfile(profile?.domain);
  if (domain === undefined)
    throw new AuthError('no tenant configured', { hint: ADD_PROFILE_HINT, code: 'no_credentials' });
  const origin = parseOrigin(domain.value, domain.source === 'flag' ? '--domain' : 'tenant domain');
  const apiBase = `${origin}/api/v2`;
  // The profile speaks for this tenant only: a domain from elsewhere leaves its client and secret out.
  const applies = profile !== undefined && safeOrigin(profile.domain) === origin ? profile : undefined;
  const overridden = () =>
    named || name === undefined || profile === undefined || usedVariables.size === 0
      ? undefined
      : { name, variables: credentialVariablesSet(env).filter((v) => usedVariables.has(v)) };
  const base = { origin, apiBase, ignoredVariables, lineBreaksRemoved };

  const token = given('token');
  if (token !== undefined) {
    if (token.value.trim() === '') throw new UsageError('the access token is empty');
    return {
      ...base,
      overriddenProfile: overridden(),
      profileName: applies && domain.source === profileSource ? name : undefined,
      auth: { kind: 'token', token: token.value.trim() },
      sources: { tenant: domain.source, credential: token.source },
    };
  }

  const clientId = given('clientId') ?? fromProfile(applies?.clientId);
  if (clientId === undefined) {
    throw new AuthError(`no credentials configured for ${origin}`, { hint: ADD_PROFILE_HINT, code: 'no_credentials' });
  }
  const authInput = given('authUrl') ?? fromProfile(applies?.authUrl);
  const authOrigin = authInput === undefined ? origin : parseOrigin(authInput.value, '--auth-url');
  const ownTokenService = applies ? safeOrigin(applies.authUrl ?? applies.domain) : undefined;
  // A profile's secret goes only to that profile's own token service, for its own client.
  const profileCredential =
    applies && applies.clientId === clientId.value && ownTokenService === authOrigin ? applies : undefined;
  const secretStore =
    profileCredential === undefined || name === undefined ? undefined : secretStoreOf(profileCredential, dir, env);
  const profileSecret = () =>
    name === undefined || profileCredential === undefined ? undefined : secretStore?.read(name, profileCredential);
  const credential = chooseCredential(given, profileCredential, profileSource, profileSecret);
  if (credential === undefined) {
    throw new AuthError(`no client secret for client ${clientId.value} on ${origin}`, {
      hint: 'set SVCADM_CLIENT_SECRET, or save it with `svcadm profiles add <name> … --client-secret-stdin`',
      code: 'no_credentials',
    });
  }
  const audience = given('audience') ?? fromProfile(applies?.audience);
  const usesProfile = [domain, clientId, credential].some((v) => v.source === profileSource);
  return {
    ...base,
    overriddenProfile: overridden(),
    profileName: usesProfile ? name : undefined,
    auth: {
      kind: 'client',
      clientId: clientId.value,
      credential: credential.value,
      tokenUrl: `${authOrigin}/oauth/token`,
      audience: audience?.value ?? `${apiBase}/`,
    },
    ...(credential.source === profileSource && credential.value.kind === 'secret'
      ? { secretStoredIn: secretStore?.location }
      : {}),
    sources: {
      tenant: domain.source,
      client: clientId.source,
      credential: credential.source,
      tokenUrl: authInput?.source ?? 'default',
      audience: audience?.source ?? 'default',
    },
  };
}

/** The secret or the private key, as a unit from the first place that has either: flags, variables, the profile. */
function chooseCredential(
  given: (field: Field) => Sourced<string> | undefined,
  profile: Profile | undefined,
  profileSource: ValueSource,
  /** The profile's secret, wherever it lives (the OS keyring is asked only here, when it is the one in use). */
  profileSecret: () => string | undefined,
): Sourced<ClientCredential> | undefined {
  const secret = given('clientSecret');
  const key = given('clientAssertionKey');
  for (const source of ['flag', 'environment'] as const) {
    if (secret?.source === source && secret.value !== '')
      return { value: { kind: 'secret', secret: secret.value }, source };
    if (key?.source === source) {
      const alg = given('clientAssertionAlg');
      const algorithm = alg === undefined ? 'RS256' : parseAlgorithm(alg.value, alg.source);
      return { value: { kind: 'assertion', keyFile: key.value, algorithm }, source };
    }
  }
  if (profile?.clientAssertionKey !== undefined) {
    const algorithm = parseAlgorithm(profile.clientAssertionAlg ?? 'RS256', profileSource);
    return { value: { kind: 'assertion', keyFile: profile.clientAssertionKey, algorithm }, source: profileSource };
  }
  const saved = profile === undefined ? undefined : profileSecret();
  if (saved) return { value: { kind: 'secret', secret: saved }, source: profileSource };
  return undefined;
}
