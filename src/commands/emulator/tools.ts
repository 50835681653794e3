import type { Invocation } from '../../cli/host.js';
import { isLoopbackHost } from '../../config/tenant.js';
import { CONTROL_OFF, CONTROL_PREFIX } from '../../emulator/control-routes.js';
import { CliError, interruption, NetworkError } from '../../errors.js';

/** The emulator the active tenant names: its origin, and where the tenant came from (for messages). */
export interface EmulatorTarget {
  origin: string;
  /** `profile demo`, `from SVCADM_DOMAIN`, `from --domain`. */
  from: string;
}

const START = 'eval "$(svcadm emulator --print-env --port 0)"';
const START_HINT = `start one with: ${START}`;

/**
 * The active tenant (the current profile, `SVCADM_DOMAIN`, `--domain` or `-p`), which must be a local emulator:
 * plain http on a loopback address. Anything else is refused before a request is sent (exit 2).
 */
export function emulatorOfTenant(inv: Invocation): EmulatorTarget {
  const credentials = inv.services.credentials();
  const url = new URL(credentials.origin);
  const source = credentials.sources.tenant;
  const from =
    source === 'environment' ? 'from SVCADM_DOMAIN' : source === 'flag' ? 'from --domain' : source.toString();
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) {
    throw new CliError('usage', `the active tenant ${url.host} (${from}) is not a local emulator`, {
      hint: `the emulator tools drive an emulator on this machine; pick one with -p or --domain, or ${START_HINT}`,
      code: 'not_an_emulator',
    });
  }
  return { origin: credentials.origin, from };
}

/**
 * One call to the emulator's control API, its answer checked by `accept` (which returns the value or undefined).
 * Failures become svcadm's errors: unreachable (exit 7), no control API (exit 5), refused by the emulator (exit 8).
 */
export async function control<T>(
  inv: Invocation,
  target: EmulatorTarget,
  method: 'GET' | 'POST' | 'DELETE',
  route: string,
  body: unknown,
  accept: (answer: unknown) => T | undefined,
): Promise<T> {
  const { callControl, ControlUnreachable } = await import('../../emulator/control-client.js');
  const at = `${target.origin}${CONTROL_PREFIX}${route}`;
  let answer: Awaited<ReturnType<typeof callControl>>;
  try {
    answer = await callControl(target.origin, method, route, body, {
      timeoutMs: inv.globals.timeoutMs,
      signal: inv.ctx.interrupt,
      timers: inv.ctx.clock,
    });
  } catch (err) {
    if (inv.ctx.interrupt.aborted) throw interruption(inv.ctx.interrupt);
    if (!(err instanceof ControlUnreachable)) throw err;
    const hint = err.why === 'refused' ? `is it running? ${START_HINT}` : undefined;
    if (err.why === 'too_large') {
      throw new NetworkError(`the emulator at ${target.origin} (${target.from}) sent ${err.message}`, {
        code: 'malformed_answer',
      });
    }
    throw new NetworkError(`cannot reach the emulator at ${target.origin} (${target.from}): ${err.message}`, {
      hint,
      ...(err.why === 'timeout' ? { reason: 'timeout' } : {}),
    });
  }
  const { status } = answer;
  const errorBody = (answer.body ?? {}) as { errorCode?: unknown; message?: unknown };
  if (status === 404 && errorBody.errorCode === CONTROL_OFF) {
    throw new CliError(
      'not_found',
      `the emulator at ${target.origin} (${target.from}) was started with its control API off (--no-control)`,
      { hint: restartLine(target), status, code: 'control_disabled' },
    );
  }
  if (status === 404) {
    throw new CliError(
      'not_found',
      `${target.origin} (${target.from}) has no emulator control API (${method} ${at}: 404)`,
      {
        hint: `is it an svcadm emulator? ${START_HINT}`,
        status,
      },
    );
  }
  if (status >= 400) {
    const said = typeof errorBody.message === 'string' ? errorBody.message.slice(0, 300) : `status ${status}`;
    throw new CliError(status >= 500 ? 'network' : 'rejected', `the emulator refused ${method} ${at}: ${said}`, {
      status,
    });
  }
  const value = accept(answer.body);
  if (value === undefined) {
    throw new NetworkError(`malformed answer from the emulator at ${at} (status ${status})`, {
      code: 'malformed_answer',
    });
  }
  return value;
}

/**
 * The line that restarts the emulator on the same port with its control API on. An emulator named by SVCADM_DOMAIN
 * was most likely started by `--print-env`, whose variables the new start replaces (the secrets are new each start).
 */
function restartLine(target: EmulatorTarget): string {
  const port = new URL(target.origin).port || '80';
  if (target.from === 'from SVCADM_DOMAIN') {
    return `restart it with the control API on: kill "$SVCADM_EMULATOR_PID"; eval "$(svcadm emulator --print-env --port ${port})"`;
  }
  return `stop it, then restart it with the control API on: svcadm emulator --port ${port}`;
}
