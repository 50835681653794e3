import { CommanderError } from 'commander';
import { type Context, processContext } from './context.js';
import { CliError, exitCodeFor, Interrupted } from './errors.js';
import { buildProgram } from './program.js';
import { jsonLine, type OutputFormat } from './render/output.js';
import { neutralize } from './render/sanitize.js';
import type { Session } from './session.js';

/** Runs one svcadm invocation and returns its exit code. The one place errors become messages and codes. */
export async function run(argv: readonly string[], ctx: Context): Promise<number> {
  const session: Session = { ctx };
  const program = buildProgram(session);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return session.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return 0;
    return report(err, session, argv);
  } finally {
    session.runtime?.close();
  }
}

function report(err: unknown, session: Session, argv: readonly string[]): number {
  const { stderr } = session.ctx.io;
  const exitCode = exitCodeFor(err);
  const debug = session.runtime?.debug ?? argv.includes('--debug');
  if (debug && err instanceof Error && !(err instanceof CliError)) stderr.write(`${err.stack ?? err.message}\n`);
  const known = err instanceof CliError;
  const message = known ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
  const hint = known ? err.hint : 'this is a bug in svcadm; run again with --debug and report what it prints';
  const format = session.runtime
    ? session.runtime.formatChosen
      ? session.runtime.format
      : undefined
    : formatFromArgv(argv);
  if ((format === 'json' || format === 'ndjson') && !(err instanceof Interrupted)) {
    const envelope = {
      error: {
        status: known ? (err.status ?? null) : null,
        code: known ? (err.code ?? null) : null,
        message,
        ...(hint ? { hint } : {}),
        exit_code: exitCode,
      },
    };
    stderr.write(jsonLine(envelope));
  } else {
    stderr.write(`svcadm: ${neutralize(message)}${hint ? ` — ${hint}` : ''}\n`);
  }
  return exitCode;
}

/** For errors raised before a command's options were read (unknown option, bad -o value). */
function formatFromArgv(argv: readonly string[]): OutputFormat | undefined {
  let format: OutputFormat | undefined;
  argv.forEach((arg, i) => {
    if (arg === '--json') format = 'json';
    const value = arg === '-o' || arg === '--output' ? argv[i + 1] : /^(?:--output=|-o=?)(.+)$/.exec(arg)?.[1];
    if (value === 'json' || value === 'ndjson' || value === 'table') format = value;
  });
  return format;
}

/**
 * Entry for bin/svcadm.js. Ctrl-C and SIGTERM both stop the command cleanly through ctx.interrupt (a tail flushes its
 * cursor file and prints where to resume); the exit code says which: 130 for Ctrl-C, 143 for SIGTERM, as a shell
 * reports a process the signal killed. A second signal exits at once.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const interrupt = new AbortController();
  let interruptedCode = 130;
  const onSignal = (code: number) => () => {
    if (interrupt.signal.aborted) process.exit(code);
    interruptedCode = code;
    interrupt.abort();
  };
  const onSigint = onSignal(130);
  const onSigterm = onSignal(143);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0); // the reader went away (`| head`): not a failure
  });
  try {
    const code = await run(argv, processContext(interrupt.signal));
    return code === 130 ? interruptedCode : code;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}
