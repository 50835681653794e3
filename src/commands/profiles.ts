import type { Command } from 'commander';
import { ClientCredentialsTokens } from '../api/auth.js';
import { configDir } from '../config/paths.js';
import {
  deleteProfile,
  type Profile,
  readProfiles,
  saveProfile,
  setCurrentProfile,
  validateProfileName,
} from '../config/profile-store.js';
import { parseOrigin } from '../config/tenant.js';
import { UsageError } from '../errors.js';
import { cell, type TableSpec } from '../render/table-model.js';
import type { Runtime } from '../runtime.js';
import { action, examples, type Session } from '../session.js';
import { askHidden, readAllStdin } from '../util/prompt.js';

interface AddOptions {
  clientSecretStdin?: boolean;
  verify: boolean;
  use?: boolean;
}

export function registerProfilesCommands(program: Command, session: Session): void {
  const profiles = program.command('profiles').description('saved tenants and client credentials');

  profiles
    .command('add')
    .description('save a profile (verified by requesting a token unless --no-verify)')
    .argument('<name>', 'profile name')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--no-verify', 'save without requesting a token')
    .option('--use', 'make it the current profile')
    .addHelpText(
      'after',
      `\nUses the global --domain, --client-id, --client-secret, --auth-url and --audience options.\nWithout a secret, it is asked for (hidden) on a terminal.${examples(
        'svcadm profiles add prod --domain tenant.example.com --client-id abc123',
        'printf %s "$SECRET" | svcadm profiles add ci --domain tenant.example.com --client-id abc123 --client-secret-stdin',
      )}`,
    )
    .action(action<[string], AddOptions>(session, (rt, [name], opts) => runProfilesAdd(rt, name, opts)));

  profiles
    .command('list')
    .description('list saved profiles')
    .addHelpText('after', examples('svcadm profiles list', 'svcadm profiles list -o json | jq -r ".[].name"'))
    .action(action(session, (rt) => runProfilesList(rt)));

  profiles
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('svcadm profiles use staging'))
    .action(action<[string], object>(session, (rt, [name]) => runProfilesUse(rt, name)));

  profiles
    .command('show')
    .description('show a profile (the current one by default); the secret is never shown')
    .argument('[name]', 'profile name')
    .addHelpText('after', examples('svcadm profiles show', 'svcadm profiles show prod -o json'))
    .action(action<[string | undefined], object>(session, (rt, [name]) => runProfilesShow(rt, name)));

  profiles
    .command('remove')
    .description('delete a saved profile and its secret')
    .argument('<name>', 'profile name')
    .addHelpText('after', examples('svcadm profiles remove old-tenant'))
    .action(action<[string], object>(session, (rt, [name]) => runProfilesRemove(rt, name)));
}

async function readSecret(rt: Runtime, opts: AddOptions): Promise<string> {
  const { io } = rt.ctx;
  const flag = rt.options.clientSecret;
  if (flag !== undefined && opts.clientSecretStdin)
    throw new UsageError('give --client-secret or --client-secret-stdin, not both');
  if (flag !== undefined) {
    rt.warn('--client-secret leaks into shell history and the process list; prefer --client-secret-stdin');
    return flag;
  }
  if (opts.clientSecretStdin) return readAllStdin(io);
  if (io.stdin.isTTY && io.stderr.isTTY) return askHidden(io, 'Client secret: ');
  throw new UsageError(
    'no client secret given',
    'pass it with --client-secret-stdin (or run on a terminal to be asked)',
  );
}

export async function runProfilesAdd(rt: Runtime, rawName: string, opts: AddOptions): Promise<void> {
  const name = validateProfileName(rawName);
  const { domain, clientId, authUrl, audience } = rt.options;
  if (domain === undefined) throw new UsageError('profiles add needs --domain');
  if (clientId === undefined || clientId.trim() === '') throw new UsageError('profiles add needs --client-id');
  const origin = parseOrigin(domain);
  const authOrigin = authUrl === undefined ? undefined : parseOrigin(authUrl, '--auth-url');
  const secret = await readSecret(rt, opts);
  if (secret.trim() === '') throw new UsageError('the client secret is empty');
  const profile: Profile = {
    domain: origin,
    clientId: clientId.trim(),
    clientSecret: secret,
    ...(authOrigin ? { authUrl: authOrigin } : {}),
    ...(audience ? { audience } : {}),
  };
  if (opts.verify) {
    const tokens = new ClientCredentialsTokens(
      rt.http(),
      {
        kind: 'client',
        clientId: profile.clientId,
        clientSecret: secret,
        tokenUrl: `${authOrigin ?? origin}/oauth/token/`,
        audience: audience ?? `${origin}/api/v2/`,
      },
      rt.configDir,
    );
    const token = await tokens.current();
    rt.notice(`Verified: the token service issued a token with ${token.scopes.length} scope(s).`);
  }
  const before = readProfiles(rt.configDir);
  await saveProfile(rt.configDir, name, profile, opts.use === true);
  const current = readProfiles(rt.configDir).current === name;
  rt.notice(
    `${before.profiles[name] ? 'Updated' : 'Saved'} profile '${name}' for ${origin} (client ${profile.clientId})${current ? '; it is the current profile' : ''}.`,
  );
}

function profileSummary(name: string, profile: Profile, current: string | undefined) {
  return {
    name,
    current: name === current,
    domain: profile.domain,
    client_id: profile.clientId,
    client_secret: profile.clientSecret ? 'stored' : 'none',
    auth_url: profile.authUrl ?? profile.domain,
    audience: profile.audience ?? `${profile.domain}/api/v2/`,
  };
}

export async function runProfilesList(rt: Runtime): Promise<void> {
  const store = readProfiles(configDir(rt.ctx.env));
  const rows = Object.entries(store.profiles).map(([name, p]) => profileSummary(name, p, store.current));
  if (rows.length === 0 && rt.format === 'table') {
    rt.notice('No profiles yet: add one with `svcadm profiles add <name> --domain <tenant> --client-id <id>`.');
    return;
  }
  await rt.print(
    rows,
    (): TableSpec => ({
      kind: 'list',
      columns: ['current', 'name', 'domain', 'client id'],
      rows: rows.map((r) => [cell(r.current ? '*' : ' '), cell(r.name), cell(r.domain), cell(r.client_id)]),
    }),
  );
}

function requireProfile(rt: Runtime, name: string): Profile {
  const store = readProfiles(rt.configDir);
  const profile = store.profiles[name];
  if (!profile) {
    const known = Object.keys(store.profiles);
    throw new UsageError(
      `no profile named '${name}'`,
      known.length ? `known profiles: ${known.join(', ')}` : 'add one with `svcadm profiles add`',
    );
  }
  return profile;
}

export async function runProfilesUse(rt: Runtime, name: string): Promise<void> {
  requireProfile(rt, name);
  await setCurrentProfile(rt.configDir, name);
  rt.notice(`Now using profile '${name}'.`);
}

export async function runProfilesShow(rt: Runtime, name: string | undefined): Promise<void> {
  const store = readProfiles(rt.configDir);
  const chosen = name ?? rt.options.profile ?? rt.ctx.env.SVCADM_PROFILE ?? store.current;
  if (chosen === undefined)
    throw new UsageError('no current profile', 'add one with `svcadm profiles add`, or name one');
  const summary = profileSummary(chosen, requireProfile(rt, chosen), store.current);
  await rt.print(summary, () => ({
    kind: 'detail',
    title: `Profile ${summary.name}${summary.current ? ' (current)' : ''}`,
    rows: [
      ['domain', cell(summary.domain)],
      ['client id', cell(summary.client_id)],
      ['client secret', cell(summary.client_secret === 'stored' ? '(stored, not shown)' : '(none)')],
      ['token service', cell(summary.auth_url)],
      ['audience', cell(summary.audience)],
    ],
  }));
}

export async function runProfilesRemove(rt: Runtime, name: string): Promise<void> {
  requireProfile(rt, name);
  const current = await deleteProfile(rt.configDir, name);
  rt.notice(`Removed profile '${name}'.${current === undefined ? ' No profile is current now.' : ''}`);
}
