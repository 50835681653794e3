import { examples, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions, Invocation } from '../../cli/host.js';
import { EVENT_TYPES } from '../../domain/event-types.js';
import { controlApiText } from '../../emulator/control-routes.js';
import { ENV_SHELLS } from '../../emulator/env-lines.js';
import { formatLimitValue, LIMITS, type Limit, UNKNOWN_USER_DELETE } from '../../emulator/limits.js';
import {
  type EmulatorFlags,
  FAULT_COUNT_MAX,
  type FaultRaw,
  FLAGGED_LIMITS,
  parseEmulatorFlags,
  parseFaultOptions,
  parseTriggerOptions,
  RETRY_AFTER_MAX,
  TRIGGER_COUNT_MAX,
} from './options.js';
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
    .option(
      '--control',
      'enable the control API under /__emulator/ (fault injection for tests; on by default on a loopback address)',
    )
    .option('--no-control', 'turn the control API off')
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
      `\nControl API (on a loopback address unless --no-control, elsewhere with --control; JSON in and out; what emulator trigger, fault and reset call):\n${controlApiText()}\n\nDurations (${FLAGGED_LIMITS.filter(
        (f) => f.limit.unit === 'ms',
      )
        .map((f) => f.flag)
        .join(', ')}): 250 is milliseconds; 2s, 5m and 1h work too.\n${examples(
        'svcadm emulator',
        'eval "$(svcadm emulator --print-env --port 0)"   # bash, zsh',
        'kill "$SVCADM_EMULATOR_PID"   # stops it',
        'eval (svcadm emulator --print-env fish --port 0)   # fish',
        'svcadm emulator --port 0 --json --rate-limit 5 --latency 200',
      )}`,
    )
    .action(
      actions.run('runEmulatorCommand', (_args: [], flags: EmulatorFlags, inv: Invocation) => ({
        flags,
        options: parseEmulatorFlags({ ...flags, clientSecret: inv.globals.credentials.clientSecret }),
      })),
    );
  registerEmulatorTools(command, actions);
}

const TOOL_NOTE =
  'Drives the emulator the active tenant names (the current profile, SVCADM_DOMAIN, --domain or -p), which must be\nan svcadm emulator on this machine with its control API on; it calls that API (svcadm emulator --help).';

/** `emulator trigger|fault|reset`: thin clients of a running emulator's control API. */
function registerEmulatorTools(emulator: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  emulator
    .command('trigger')
    .description('make the running emulator emit events now (POST /__emulator/events)')
    .argument('<event-type>', 'one of the 25 event types, e.g. user.created')
    .option('--count <n>', `how many events, 1 to ${TRIGGER_COUNT_MAX} (default 1)`)
    .completesArgument({ kind: 'choices', values: EVENT_TYPES })
    .addHelpText(
      'after',
      `\n${TOOL_NOTE}\nEvent types: ${EVENT_TYPES.join(', ')}.${examples(
        'svcadm emulator trigger user.created',
        'svcadm emulator trigger organization.member.added --count 20',
      )}`,
    )
    .action(
      actions.run('runEmulatorTrigger', ([type]: [string], opts: { count?: string }) =>
        parseTriggerOptions(type, opts),
      ),
    );
  emulator
    .command('fault')
    .description('make the next requests under a path fail with a status (POST /__emulator/faults)')
    .argument('<path>', 'path prefix, e.g. /rate-limit-policies (also matches /api/v2/rate-limit-policies/…)')
    .option('--status <code>', 'the HTTP status to answer, 400 to 599 (required)')
    .option('--count <n>', `how many requests fail, 1 to ${FAULT_COUNT_MAX} (default 1)`)
    .option('--retry-after <s>', `send Retry-After: <s> seconds, 0 to ${RETRY_AFTER_MAX}`)
    .addHelpText(
      'after',
      `\n${TOOL_NOTE}\nFaults are used up in the order they were added; svcadm emulator reset --faults clears them.${examples(
        'svcadm emulator fault /rate-limit-policies --status 503',
        'svcadm emulator fault /users --status 429 --count 3 --retry-after 2',
      )}`,
    )
    .action(actions.run('runEmulatorFault', ([path]: [string], opts: FaultRaw) => parseFaultOptions(path, opts)));
  emulator
    .command('reset')
    .description('put the running emulator back to its seed, or clear its faults (POST /__emulator/reset)')
    .option('--faults', 'only clear the queued faults (DELETE /__emulator/faults)')
    .addHelpText(
      'after',
      `\n${TOOL_NOTE}\nWithout --faults: the data, faults, settings, request log and client keys go back to what the\nemulator started with; its secrets and the events already emitted stay.${examples(
        'svcadm emulator reset --faults',
        'svcadm emulator reset',
      )}`,
    )
    .action(
      actions.run('runEmulatorReset', (_args: [], opts: { faults?: boolean }) => ({
        faultsOnly: opts.faults === true,
      })),
    );
}
