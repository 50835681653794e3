import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Single-quotes a word for the `sh -c` line tmux runs. */
function sh(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface Terminal {
  /** The visible screen, trailing spaces and empty lines removed. */
  screen(): Promise<string>;
  /** The pane's scrollback and screen together (`capture-pane -S -`), trailing spaces and empty lines removed. */
  history(): Promise<string>;
  /** Polls the screen until `ready` holds (or fails after `timeoutMs` with the last screen). */
  /**
   * Polls the screen until `ready` holds; with `settledMs`, until it has held on an unchanged screen for that long
   * (a view that draws a key's effect over several frames is read once it is done).
   */
  waitFor(ready: (screen: string) => boolean, timeoutMs?: number, settledMs?: number): Promise<string>;
  /** Waits for the command to end; resolves with its exit code. */
  exited(): Promise<number>;
  keys(...keys: string[]): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs `argv` in a pseudo-terminal of `columns` x `rows` made by tmux (its own server and socket, no user config),
 * with exactly `env` and TERM=xterm-256color. The pane stays after the command ends, so the last screen can be read.
 */
export async function openTerminal(
  argv: readonly string[],
  options: { columns: number; rows: number; env: Record<string, string | undefined> },
): Promise<Terminal> {
  const dir = mkdtempSync(join(tmpdir(), 'svcadm-tmux-'));
  const socket = join(dir, 'socket');
  const tmux = (...args: string[]) => exec('tmux', ['-S', socket, ...args], { env: tmuxEnv });
  const tmuxEnv = { PATH: process.env.PATH, HOME: dir, TERM: 'xterm-256color', ...options.env };
  // The shell outlives a Ctrl-C meant for the command (`trap :`, not ignored, so the command gets the default).
  const command = `trap : INT; ${argv.map(sh).join(' ')}; echo $? > ${sh(join(dir, 'code'))}; tmux -S ${sh(socket)} wait-for -S done; exec cat`;
  await exec(
    'tmux',
    [
      '-S',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      String(options.columns),
      '-y',
      String(options.rows),
      command,
    ],
    { env: tmuxEnv },
  );
  const screen = async () => {
    const { stdout } = await tmux('capture-pane', '-p');
    return stdout.replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
  };
  return {
    screen,
    async history() {
      const { stdout } = await tmux('capture-pane', '-p', '-S', '-');
      return stdout.replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
    },
    async waitFor(ready, timeoutMs = 10_000, settledMs = 0) {
      const deadline = Date.now() + timeoutMs;
      let held: { text: string; since: number } | undefined;
      for (;;) {
        const now = await screen();
        if (!ready(now)) held = undefined;
        else if (held?.text !== now) held = { text: now, since: Date.now() };
        if (held && Date.now() - held.since >= settledMs) return now;
        if (Date.now() > deadline) throw new Error(`the screen never got ready:\n${now}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async exited() {
      await tmux('wait-for', 'done');
      return Number(readFileSync(join(dir, 'code'), 'utf8').trim());
    },
    async keys(...keys) {
      await tmux('send-keys', ...keys);
    },
    async resize(columns, rows) {
      await tmux('resize-window', '-x', String(columns), '-y', String(rows));
    },
    async close() {
      await tmux('kill-server').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
