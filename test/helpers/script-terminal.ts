import { spawn } from 'node:child_process';

/**
 * Runs the `sh` line `command` in a pseudo-terminal made by util-linux's `script`, with `env` as its whole
 * environment; resolves with what the terminal showed (stdout and stderr alike, with their escape sequences) and the
 * exit code. Off a terminal the pseudo-terminal has no size: the line gives it one (`stty rows 40 cols 160; exec …`).
 */
export function runInScriptTerminal(
  command: string,
  env: Record<string, string | undefined>,
): Promise<{ text: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    child.on('exit', (code) => resolve({ text, code }));
  });
}
