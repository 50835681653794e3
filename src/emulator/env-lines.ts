import { shellWord } from '../util/shell-word.js';

/** The shells `svcadm emulator --print-env` writes for: POSIX `export` lines (bash, zsh, dash, ksh), or fish. */
export const ENV_SHELLS = ['sh', 'bash', 'zsh', 'fish'] as const;
export type EnvShell = (typeof ENV_SHELLS)[number];

export function isEnvShell(value: string): value is EnvShell {
  return (ENV_SHELLS as readonly string[]).includes(value);
}

/**
 * Lines that set `vars` when given to the shell's `eval`. Fish lines end with `;`, so `eval (…)`, which joins the
 * lines with spaces, works as well as `eval "$(…)"`.
 */
export function envLines(shell: EnvShell, vars: Readonly<Record<string, string>>): string {
  return Object.entries(vars)
    .map(([name, value]) =>
      shell === 'fish' ? `set -gx ${name} ${shellWord(value)};\n` : `export ${name}=${shellWord(value)}\n`,
    )
    .join('');
}

/**
 * The read-only client as variables beside the admin's `SVCADM_CLIENT_*`: the banner's "read-only client", the start
 * line's `readOnly`. A read-only run takes them as its own: `SVCADM_CLIENT_ID=$SVCADM_READ_ONLY_CLIENT_ID …`.
 */
export function readOnlyVariables(client: { clientId: string; clientSecret: string }): Record<string, string> {
  return { SVCADM_READ_ONLY_CLIENT_ID: client.clientId, SVCADM_READ_ONLY_CLIENT_SECRET: client.clientSecret };
}
