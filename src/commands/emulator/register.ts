import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions, Invocation } from '../../cli/host.js';
import { ENV_SHELLS } from '../../emulator/env-lines.js';
import { formatLimitValue, LIMITS, type Limit, UNKNOWN_USER_DELETE } from '../../emulator/limits.js';
import { type EmulatorFlags, FLAGGED_LIMITS, parseEmulatorFlags } from './options.js';
import type * as Run from './run.js';

function placeholder(limit: Limit): string {
  if (limit.unit === 'ms') return '<duration>';
  if (limit.unit === 'share') return '<p>';
  return '<n>';
}

function flagHelp(limit: Limit): string {
  const shown = formatLimitValue(limit, limit.commandDefault ?? limit.default);
  return `${limit.help} (default ${shown})`;
}

export function registerEmulatorCommand(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const command = program
    .command('emulator')
    .description('run a local tenant that speaks the interface (seeded data, fault injection)')
    .streaming();
  for (const { flag, limit } of FLAGGED_LIMITS) {
    command.option(`${flag} ${placeholder(limit)}`, flagHelp(limit));
    if (flag === LIMITS.port.flag) command.option('--host <addr>', 'address to bind (default 127.0.0.1)');
  }
  command.option(
    `${UNKNOWN_USER_DELETE.flag} <status>`,
    `${UNKNOWN_USER_DELETE.help} (default ${UNKNOWN_USER_DELETE.default})`,
  );
  command
    .option(
      '--client-secret <secret>',
      "the admin client's secret (default: a new random one on every start, printed at start)",
    )
    .option(
      '--client-public-key <pem-file>',
      'register this RSA public key on the admin client: it may then authenticate with a signed client_assertion',
    )
    .option('--without-events-feature', 'model a tenant without the Events feature: GET /events answers 404')
    .option('--control', 'enable the control API under /__emulator/ (fault injection for tests)')
    .option('--no-directory-provisioning', 'model a tenant without directory provisioning (403 on that list)')
    .option('--no-rate-limit-policies', 'model a tenant without rate limit policies (403 on those endpoints)')
    .option('--log-requests', 'print one line per request on stderr')
    .environment([])
    .option(
      '--print-env [shell]',
      `start in the background, print the variables to eval and exit; shell: ${ENV_SHELLS.join(', ')} (default sh)`,
    )
    .addHelpText(
      'after',
      `\nDurations (${FLAGGED_LIMITS.filter((f) => f.limit.unit === 'ms')
        .map((f) => f.flag)
        .join(', ')}): 250 is milliseconds; 2s, 5m and 1h work too.\n${examples(
        'svcadm emulator',
        'eval "$(svcadm emulator --print-env --port 0)"   # bash, zsh',
        'kill "$SVCADM_EMULATOR_PID"   # stops it',
        'eval (svcadm emulator --print-env fish --port 0)   # fish',
        'svcadm emulator --port 0 --json --control --rate-limit 5 --latency 200',
      )}`,
    )
    .action(
      actions.run('runEmulatorCommand', (_args: [], flags: EmulatorFlags, inv: Invocation) => ({
        flags,
        options: parseEmulatorFlags({ ...flags, clientSecret: inv.globals.credentials.clientSecret }),
      })),
    );
}
