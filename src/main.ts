import { type Context, processContext } from './context.js';
import { EXIT_OK, errorCodeOf, exitCodeFor, exitCodeForSignal } from './error-codes.js';
import { endsQuietly, Interrupted, type StopSignal } from './errors.js';
import { errorViewOf, type Globals, type RawGlobalOptions } from './global-options.js';
import { reportFailure } from './io/error-report.js';
import { outputFailure } from './io/io-streams.js';
import { outputGrace, withinGrace } from './io/output-grace.js';
import { Redactor, redactingStream } from './io/redaction.js';
import { buildProgram } from './program.js';
import { neutralize } from './text/sanitize.js';
import { tracesDecision } from './traces/config.js';
import { NO_TRACER } from './traces/tracer.js';
import { childRoleOf } from './util/child-role.js';
import { packageVersion } from './version.js';

/**
 * How long the traces' export may hold the exit: a collector down or slow costs at most this, in real time (the
 * export's own time limits are the SDK's, in real time too).
 */
const TRACES_FLUSH_CAP_MS = 1000;

/** Runs one svcadm invocation and returns its exit code. The one place errors become messages and codes. */
export async function run(argv: readonly string[], world: Context): Promise<number> {
  let globals: Globals | undefined;
  // Everything written to stderr, the failure report included, is scrubbed of this invocation's secrets.
  const secrets = new Redactor();
  const { io } = world;
  // Off unless the OTEL_* variables ask; then the SDK is loaded, and only then (src/traces/tracer.ts).
  const traces = tracesDecision(world.env);
  let tracer = NO_TRACER;
  let tracesDebug = traces.on ? undefined : traces.debug;
  if (traces.on) {
    // The headers of the export may hold a collector's key: never written to stderr either.
    for (const value of Object.values(traces.config.headers)) secrets.add(value);
    try {
      tracer = (await import('./traces/otel.js')).startTraces(traces.config, packageVersion());
    } catch (err) {
      // Traces never stop a command: a run whose SDK could not start goes on without them.
      tracesDebug = `traces: could not start: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const ctx: Context = {
    ...world,
    tracer,
    io: {
      stdout: io.stdout,
      stderr: redactingStream(io.stderr, secrets),
      get stdin() {
        return io.stdin;
      },
    },
  };
  // The command's span: named `svcadm <command path>` once the line is read (cli/host.ts).
  const span = tracer.startSpan('svcadm');
  const ran = await tracer.withSpan(span, () =>
    runCommand(argv, ctx, world, secrets, (parsed) => {
      globals = parsed;
    }),
  );
  span.setAttributes({ 'process.exit.code': ran.code });
  if (ran.err !== undefined) span.failed(errorCodeOf(ran.err));
  span.end();
  const debugLine = tracer.on ? await tracer.shutdown(TRACES_FLUSH_CAP_MS) : tracesDebug;
  // A collector down changes neither output nor exit code: one line with --debug, else nothing.
  if (debugLine !== undefined && globals?.debug === true)
    ctx.io.stderr.write(`svcadm: debug: ${neutralize(debugLine)}\n`);
  return ran.code;
}

/** The command line run: its exit code, and the failure that made it when one did. */
async function runCommand(
  argv: readonly string[],
  ctx: Context,
  world: Context,
  secrets: Redactor,
  parsed: (globals: Globals) => void,
): Promise<{ code: number; err?: unknown }> {
  let globals: Globals | undefined;
  const program = buildProgram(
    ctx,
    (given) => {
      globals = given;
      parsed(given);
    },
    secrets,
    argv,
  );
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return { code: EXIT_OK };
    }
    await program.parseAsync([...argv], { from: 'user' });
    // A write that failed after the command was done with it (stderr's reader gone, a full disk) still counts.
    const failed = outputFailure(world.io.stdout, 'stdout') ?? outputFailure(world.io.stderr, 'stderr');
    if (failed) throw failed;
    return { code: EXIT_OK };
  } catch (err) {
    const exitCode = exitCodeFor(err);
    if (!endsQuietly(err)) {
      const view = globals ?? errorViewOf(program.opts<RawGlobalOptions>(), ctx.io, ctx.env);
      reportFailure(err, ctx.io.stderr, view, exitCode);
    }
    return { code: exitCode, err: exitCode === EXIT_OK ? undefined : err };
  }
}

/**
 * NO_COLOR wins over FORCE_COLOR (and an empty NO_COLOR means nothing), as svcadm decides colour from the
 * environment; the one that loses is dropped from this process's environment. Node otherwise prints a warning
 * ("The 'NO_COLOR' env is ignored due to the 'FORCE_COLOR' env being set") when both are set and something loads
 * its internal colour module while stderr is a terminal (`node:assert` and `console` do). Nothing svcadm loads does
 * so today (conf did, and is gone); this keeps a future dependency from bringing the warning back.
 */
function settleColourEnvironment(env: NodeJS.ProcessEnv): void {
  if (env.NO_COLOR === undefined || env.FORCE_COLOR === undefined) return;
  if (env.NO_COLOR === '') delete env.NO_COLOR;
  else delete env.FORCE_COLOR;
}

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Entry for bin/svcadm.js (and the single executable). A child process svcadm started for one of its roles
 * (src/util/child-role.ts) runs that role instead of a command line. Ctrl-C, SIGTERM and SIGHUP all stop the command cleanly through ctx.interrupt (a tail
 * flushes its cursor file and prints where to resume); the interrupt's reason names the signal, and so the exit
 * code. A second signal exits at once.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const child = childRoleOf(argv);
  if (child !== undefined) {
    const { runChildRole } = await import('./child-roles.js');
    return runChildRole(child.role, child.args);
  }
  settleColourEnvironment(process.env);
  const interrupt = new AbortController();
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (interrupt.signal.aborted) process.exit(exitCodeForSignal(signal));
      interrupt.abort(new Interrupted(signal));
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_OK); // the reader went away (`| head`): not a failure
  });
  // Other write failures are read from the stream (`errored`) and become exit 74; unheard, they would crash.
  process.stderr.on('error', () => {});
  const ctx = processContext(interrupt.signal);
  try {
    const code = await run(argv, ctx);
    if (interrupt.signal.aborted) await exitAfterStop(code, outputGrace(interrupt.signal, ctx.clock));
    return code;
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

/**
 * After a stop signal, the run has said how it stopped: its last lines are given until the grace ends to reach
 * stdout and stderr, then the process exits. Node would otherwise stay for as long as a write waits on a reader that
 * reads nothing (stderr may be that same pipe).
 */
async function exitAfterStop(code: number, grace: AbortSignal): Promise<never> {
  await withinGrace(Promise.all([drained(process.stdout), drained(process.stderr)]), grace).catch(() => {});
  process.exit(code);
}

/** Resolves once everything written to `stream` has been handed to the system, or it can take no more. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed || stream.errored) return Promise.resolve();
  // An empty write's callback comes after those of the writes before it.
  return new Promise((resolve) => stream.write('', () => resolve()));
}
