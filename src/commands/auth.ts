import { examples, type SvcadmCommand } from '../cli/command.js';
import type { Host, Invocation } from '../cli/host.js';
import { cell, timeCell } from '../render/table-model.js';

export function registerAuthCommands(program: SvcadmCommand, host: Host): void {
  const auth = program.command('auth').description('access tokens for the active credentials');
  auth
    .command('token')
    .description('print an access token, alone on stdout')
    .addHelpText(
      'after',
      examples(
        'curl -H "Authorization: Bearer $(svcadm auth token)" https://tenant.example.com/api/v2/users/abc/permissions',
      ),
    )
    .action(host.action((inv) => runAuthToken(inv)));
  auth
    .command('status')
    .description('show the tenant, client, token expiry and granted scopes')
    .addHelpText('after', examples('svcadm auth status', 'svcadm auth status -o json | jq -r ".scopes[]"'))
    .action(host.action((inv) => runAuthStatus(inv)));
}

export async function runAuthToken(inv: Invocation): Promise<void> {
  const token = await inv.services.tokens().current();
  await inv.io.write(`${token.accessToken}\n`);
}

export async function runAuthStatus(inv: Invocation): Promise<void> {
  const creds = inv.services.credentials();
  const token = await inv.services.tokens().current();
  const status = {
    tenant: creds.origin,
    profile: creds.profileName ?? null,
    client_id: creds.auth.kind === 'client' ? creds.auth.clientId : null,
    token_url: creds.auth.kind === 'client' ? creds.auth.tokenUrl : null,
    audience: creds.auth.kind === 'client' ? creds.auth.audience : null,
    token_source: token.source,
    expires_at: token.expiresAt === undefined ? null : new Date(token.expiresAt).toISOString(),
    scopes: token.scopes,
  };
  await inv.out.one(status, () => ({
    kind: 'detail',
    title: `Authenticated to ${status.tenant}`,
    rows: [
      ['profile', cell(status.profile ?? '(none: flags or environment)')],
      ['client id', cell(status.client_id ?? '(bearer token given)')],
      ['token', cell(`from the ${status.token_source}`)],
      [
        'expires',
        status.expires_at === null ? cell('unknown') : timeCell(status.expires_at, inv.ctx.clock.now(), true),
      ],
      ['scopes', cell(status.scopes.length ? `(${status.scopes.length}) ${status.scopes.join(' ')}` : '(none)')],
    ],
  }));
}
