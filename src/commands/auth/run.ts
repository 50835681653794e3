import { isJwt } from '../../api/jwt-claims.js';
import type { Invocation } from '../../cli/host.js';
import { CREDENTIAL_VARIABLES } from '../../config/credential-variables.js';
import type { Credentials } from '../../config/credentials.js';
import { profilesFile } from '../../config/paths.js';
import { ApiError, AuthError } from '../../errors.js';
import { ACCESSIBLE_VARIABLE, isAccessible } from '../../global-options.js';
import { cell, type DetailTable, timeCell } from '../../render/table-model.js';

export async function runAuthToken(inv: Invocation): Promise<void> {
  const token = await inv.services.tokens().current();
  await inv.io.write(`${token.accessToken}\n`);
}

/** A policy id no tenant has: any answer but 401 to it proves a token is accepted (403 and 404 come after auth). */
const PROBE_POLICY_ID = 'svcadm-auth-check';

/** A given token is tried on the interface: only a 401 says it is refused. */
async function proveGivenToken(inv: Invocation): Promise<void> {
  const api = inv.services.api();
  try {
    await api.getJson(api.url(['rate-limit-policies', PROBE_POLICY_ID]), 'rate limit policy');
  } catch (err) {
    if (err instanceof ApiError && err.status !== 401) return;
    throw err;
  }
}

function credentialText(creds: Credentials, configDir: string): string {
  if (creds.auth.kind === 'token') return 'bearer token';
  const { credential } = creds.auth;
  if (credential.kind !== 'secret') return `private key ${credential.keyFile} (${credential.algorithm})`;
  // Where a saved secret lives: the OS keyring, or the profile file.
  if (creds.secretStoredIn === 'keyring') return 'client secret, in the OS keyring';
  return creds.secretStoredIn === 'file' ? `client secret, in ${profilesFile(configDir)}` : 'client secret';
}

/** A table shows this many scopes at most: an admin client holds hundreds; `-o json` lists them all. */
const SCOPES_SHOWN = 12;

function scopesText(scopes: readonly string[]): string {
  if (scopes.length === 0) return '(none)';
  const shown = scopes.slice(0, SCOPES_SHOWN).join(' ');
  const rest = scopes.length - SCOPES_SHOWN;
  return `(${scopes.length}) ${shown}${rest > 0 ? ` … and ${rest} more (-o json lists them all)` : ''}`;
}

function isoTime(ms: number | undefined): string | null {
  if (ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  return new Date(ms).toISOString();
}

export async function runAuthStatus(inv: Invocation, check: boolean): Promise<void> {
  const creds = inv.services.credentials();
  const given = creds.auth.kind === 'token';
  if (creds.auth.kind === 'token' && !isJwt(creds.auth.token)) {
    throw new AuthError('the given token is not a JWT (three base64url parts: header, claims, signature)', {
      hint: `check the token given with ${creds.sources.credential === 'flag' ? '--token' : CREDENTIAL_VARIABLES.token}`,
    });
  }
  const tokens = inv.services.tokens();
  const token = check ? await tokens.fresh() : await tokens.current();
  const now = inv.ctx.clock.now();
  if (given && token.expiresAt !== undefined && token.expiresAt <= now) {
    throw new AuthError(`the given token expired at ${isoTime(token.expiresAt) ?? 'an unreadable time'}`, {
      hint: 'get a new one',
    });
  }
  if (given && check) await proveGivenToken(inv);
  const verified = !given || check;
  const status = {
    tenant: creds.origin,
    profile: creds.profileName ?? null,
    client_id: creds.auth.kind === 'client' ? creds.auth.clientId : null,
    credential: credentialText(creds, inv.services.configDir),
    token_url: creds.auth.kind === 'client' ? creds.auth.tokenUrl : null,
    audience: creds.auth.kind === 'client' ? creds.auth.audience : null,
    sources: {
      tenant: creds.sources.tenant,
      client_id: creds.sources.client ?? null,
      credential: creds.sources.credential,
      token_url: creds.sources.tokenUrl ?? null,
      audience: creds.sources.audience ?? null,
    },
    token_source: token.source,
    checked: check,
    expires_at: isoTime(token.expiresAt),
    scopes: token.scopes,
    // Whether svcadm runs as for an AI agent, and the variable that decided it (SVCADM_AGENT, CLAUDECODE, …).
    agent_mode: {
      on: inv.globals.agent.on,
      variable: inv.globals.agent.variable ?? null,
      agent: inv.globals.agent.agent ?? null,
    },
    // Accessible mode (--accessible, SVCADM_ACCESSIBLE), and what turned it on.
    accessible_mode: {
      on: inv.globals.accessible,
      source: inv.globals.accessible ? (isAccessible({}, inv.ctx.env) ? ACCESSIBLE_VARIABLE : '--accessible') : null,
    },
    config_dir: inv.services.configDir,
  };
  const from = (source: string | null) => (source === null || source === 'default' ? '' : `  (${source})`);
  await inv.out.one(status, (): DetailTable => {
    const rows: DetailTable['rows'] = [
      ['tenant', cell(`${status.tenant}${from(status.sources.tenant)}`)],
      ['profile', cell(status.profile ?? '(none)')],
      [
        'client id',
        cell(
          status.client_id === null ? '(bearer token given)' : `${status.client_id}${from(status.sources.client_id)}`,
        ),
      ],
      ['credential', cell(`${status.credential}${from(status.sources.credential)}`)],
    ];
    if (status.token_url !== null) {
      rows.push(['token service', cell(`${status.token_url}${from(status.sources.token_url)}`)]);
    }
    rows.push(
      [
        'token',
        cell(given ? (check ? 'given, accepted by the interface' : 'given') : `from the ${status.token_source}`),
      ],
      ['expires', status.expires_at === null ? cell('unknown') : timeCell(status.expires_at, now, true)],
      ['scopes', cell(scopesText(status.scopes))],
      ['config folder', cell(status.config_dir)],
    );
    const { agent_mode: agent } = status;
    if (agent.on) rows.push(['agent mode', cell(`on (${[agent.variable, agent.agent].filter(Boolean).join(': ')})`)]);
    const { accessible_mode: accessible } = status;
    if (accessible.on) rows.push(['accessible mode', cell(`on (${accessible.source})`)]);
    return {
      kind: 'detail',
      title: verified ? `Authenticated to ${status.tenant}` : `Token for ${status.tenant}`,
      ...(verified ? {} : { note: '(not checked with the service: --check asks it)' }),
      rows,
    };
  });
}
