import { examples, option, type SvcadmCommand } from '../../cli/command.js';
import type { GroupActions, Invocation } from '../../cli/host.js';
import { EVENT_TYPES } from '../../domain/event-types.js';
import { FORWARD_SECRET_ENV } from '../../events/forward/target.js';
import { TENANT_ENVIRONMENT } from '../../help/environment.js';
import { parseReplayOptions, parseTailOptions, type RawReplayOptions, type RawTailOptions } from './options.js';
import type * as Run from './run.js';

/** How a stream of events prints, the same for `events tail` and `events replay`. */
const STREAM_OUTPUT =
  '\nOutput: one event a line. -o json prints NDJSON (one JSON document a line), as -o ndjson does, and says so ' +
  'once on stderr; NDJSON is the default off a terminal. -o yaml prints a document an event; a terminal shows ' +
  'event lines for people.';

/** One line: help output wraps it to the terminal. */
function typeList(): string {
  return `  ${EVENT_TYPES.join(' ')}`;
}

export function registerEventsCommands(program: SvcadmCommand, actions: GroupActions<typeof Run>): void {
  const events = program.command('events').description('the tenant event stream');
  const tail = events
    .command('tail')
    .description('follow the event stream (GET /events, Server-Sent Events)')
    .streaming()
    .addOption(
      option('--type <type>', 'only these event types (repeatable, or a comma list)')
        .repeated()
        .completes({ kind: 'list', values: EVENT_TYPES }),
    )
    .option('--from <cursor>', 'resume after this cursor (an offset from a previous run)')
    .option('--since <time>', 'start at an RFC 3339 time or a duration back from now (30s, 15m, 2h, 7d)')
    .option('--max-events <n>', 'stop after n events')
    .option('--duration <d>', 'stop after this long (e.g. 30s, 5m)')
    .addOption(
      option(
        '--cursor-file <path>',
        'start from the cursor saved here (--from and --since win); move it only past lines written without error',
      ).completes({ kind: 'file' }),
    )
    .addOption(
      option('--output-file <path>', "also append each event's NDJSON line to this file as it is shown").completes({
        kind: 'file',
      }),
    )
    .option('--max-reconnects <n>', 'give up after n reconnects in a row without progress (default: never)');
  addForwardingOptions(tail, 'POST each event to this app (https, or http on loopback); 2xx acknowledges it');
  tail
    .environment([
      ...TENANT_ENVIRONMENT,
      { names: [FORWARD_SECRET_ENV], description: 'stands in for --forward-secret (the command line leaks)' },
    ])
    .addHelpText('after', `\nEvent types:\n${typeList()}`)
    .addHelpText('after', STREAM_OUTPUT)
    .addHelpText(
      'after',
      '\nExit: 0 when --duration or --max-events ends a working stream; 7 when it ends while the stream is down (it ' +
        'never connected, or a reconnect failed since the last drop), with since when and the line to resume with. ' +
        'The service rotating a stream (connection_timeout) is followed silently. 130/143/129 on SIGINT/SIGTERM/SIGHUP. ' +
        'With --forward-to and no --dead-letter: 8 when the app rejected an event (a 4xx), 7 when it never ' +
        'acknowledged one within --forward-attempts; the resume line starts before that event.',
    )
    .addHelpText(
      'after',
      examples(
        'svcadm events tail',
        'svcadm events tail --type user.created,user.deleted --since 15m',
        'svcadm events tail --cursor-file .svcadm-cursor --duration 5m -o ndjson | jq -c .',
        'svcadm events tail --forward-to http://localhost:3000/webhooks --cursor-file .svcadm-cursor',
      ),
    )
    .action(
      actions.run(
        'runEventsTail',
        (_args: [], raw: RawTailOptions, inv: Invocation) =>
          // Across tenants, --from holds a cursor per profile (`dev=<cursor>,…`): checked by the merged tail.
          inv.globals.tenants === undefined
            ? parseTailOptions(raw, inv.ctx.clock.now(), inv.ctx.env)
            : { ...parseTailOptions({ ...raw, from: undefined }, inv.ctx.clock.now(), inv.ctx.env), from: raw.from },
        { many: 'runEventsTailAcross' },
      ),
    );
  const replay = events
    .command('replay <file>')
    .description('send a recorded NDJSON file again, in file order: -o ndjson, --output-file or --dead-letter output')
    .addOption(
      option('--type <type>', 'only these event types (repeatable, or a comma list)')
        .repeated()
        .completes({ kind: 'list', values: EVENT_TYPES }),
    )
    .option('--strict', 'stop at a malformed line (default: report it with its line number and skip it)')
    .option('--from-line <n>', 'start at this line of the file (a stopped replay prints the line to resume with)');
  addForwardingOptions(replay, 'POST each event to this app (https, or http on loopback); 2xx acknowledges it');
  replay
    .environment([
      { names: [FORWARD_SECRET_ENV], description: 'stands in for --forward-secret (the command line leaks)' },
    ])
    .addHelpText(
      'after',
      '\nA line is an event as -o ndjson and --output-file write it, or a dead letter (the event inside is sent). ' +
        'Memory stays flat whatever the size of the file; a terminal shows the progress.\n' +
        `${STREAM_OUTPUT.slice(1)}\n` +
        'Exit: 0 when every line was replayed; 2 for a malformed line under --strict; 8 when the app rejected an ' +
        'event and 7 when it never acknowledged one (without --dead-letter), with the line to resume with.',
    )
    .addHelpText(
      'after',
      examples(
        'svcadm events replay events.ndjson --forward-to http://localhost:3000/webhooks',
        'svcadm events replay dead.ndjson --forward-to http://localhost:3000/webhooks --dead-letter dead-again.ndjson',
        'svcadm events replay events.ndjson --type user.created -o table',
      ),
    )
    .action(
      actions.run('runEventsReplay', ([file]: [string], raw: RawReplayOptions, inv: Invocation) =>
        parseReplayOptions(file, raw, inv.ctx.env),
      ),
    );
}

/** The forwarding options, the same on `events tail` and `events replay`. */
function addForwardingOptions(command: SvcadmCommand, forwardTo: string): void {
  command
    .option('--forward-to <url>', forwardTo)
    .addOption(
      option(
        '--forward-secret <secret>',
        'sign forwarded events with this secret (default: a new one, printed)',
      ).environmentVariable(FORWARD_SECRET_ENV),
    )
    .option('--forward-timeout <d>', 'an attempt the app has not answered within this is retried (default 10s)')
    .option('--forward-attempts <n>', 'attempts per event before it counts as failed (default 10; 0: no end)')
    .addOption(
      option(
        '--dead-letter <file>',
        'append events the app rejected or never acknowledged to this NDJSON file, and go on',
      ).completes({ kind: 'file' }),
    );
}
