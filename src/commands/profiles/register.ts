import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions } from '../../cli/host.js';
import { COLOUR_ENV, PROFILE_ENV, STORE_ENV } from '../../help/environment.js';
import type { AddOptions } from './options.js';
import type * as Run from './run.js';

export function registerProfilesCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const profiles = program.command('profiles').description('saved tenants and client credentials');

  profiles
    .command('add')
    .description('save a profile (verified by requesting a token unless --no-verify)')
    .argument('<name>', 'profile name')
    .option('--client-secret-stdin', 'read the client secret from standard input')
    .option('--no-verify', 'save without requesting a token')
    .option('--use', 'make it the current profile')
    .option('--insecure-storage', 'keep the client secret in the 0600 profile file, not in the OS keyring')
    .environment([STORE_ENV, COLOUR_ENV])
    .addHelpText(
      'after',
      `\nUses the global --domain, --client-id, --client-secret, --client-assertion-key, --client-assertion-alg,\n--auth-url and --audience options. Without a secret or a key, the secret is asked for (hidden) on a terminal.\nA client secret goes into the OS keyring (Keychain, Credential Manager, Secret Service) where there is one, else\ninto the 0600 profile file. A private key is stored as its path, never its contents, and must be readable only by\nyou (chmod 600).${examples(
        'svcadm profiles add prod --domain tenant.example.com --client-id abc123',
        'printf %s "$SECRET" | svcadm profiles add ci --domain tenant.example.com --client-id abc123 --client-secret-stdin',
        'svcadm profiles add prod --domain tenant.example.com --client-id abc123 --client-assertion-key ~/.ssh/svcadm.pem',
      )}`,
    )
    .action(actions.run('runProfilesAdd', ([name]: [string], opts: AddOptions) => ({ name, ...opts })));

  profiles
    .command('list')
    .description('list saved profiles')
    .environment([STORE_ENV, COLOUR_ENV])
    .addHelpText('after', examples('svcadm profiles list', 'svcadm profiles list -o json | jq -r ".[].name"'))
    .action(actions.run('runProfilesList', () => undefined));

  profiles
    .command('use')
    .description('make a profile the current one')
    .argument('<name>', 'profile name')
    .completesArgument({ kind: 'profiles' })
    .environment([STORE_ENV])
    .addHelpText('after', examples('svcadm profiles use staging'))
    .action(actions.run('runProfilesUse', ([name]: [string]) => name));

  profiles
    .command('show')
    .description('show a profile (the current one by default); the secret is never shown')
    .argument('[name]', 'profile name')
    .completesArgument({ kind: 'profiles' })
    .environment([PROFILE_ENV, STORE_ENV, COLOUR_ENV])
    .addHelpText('after', examples('svcadm profiles show', 'svcadm profiles show prod -o json'))
    .action(actions.run('runProfilesShow', ([name]: [string | undefined]) => name));

  profiles
    .command('migrate-secrets')
    .description('move client secrets kept in the profile file into the OS keyring')
    .argument('[names...]', 'the profiles to move (default: all)')
    .completesArgument({ kind: 'profiles' })
    .environment([STORE_ENV])
    .addHelpText('after', examples('svcadm profiles migrate-secrets', 'svcadm profiles migrate-secrets prod staging'))
    .action(actions.run('runProfilesMigrateSecrets', ([names]: [string[]]) => names));

  profiles
    .command('remove')
    .description('delete a saved profile and its secret')
    .argument('<name>', 'profile name')
    .completesArgument({ kind: 'profiles' })
    .environment([STORE_ENV])
    .addHelpText('after', examples('svcadm profiles remove old-tenant'))
    .action(actions.run('runProfilesRemove', ([name]: [string]) => name));
}
