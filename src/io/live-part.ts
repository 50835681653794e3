import type { OutStream } from '../context.js';

/**
 * From the start of the live part to the end of the screen, erased. From the second column: tmux takes an erase
 * from the top-left corner for a cleared screen and keeps what it erases in the scrollback.
 */
const ERASE_LIVE_PART = '\r\x1b[2K\x1b[2G\x1b[J\r';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
/**
 * The terminal's automatic wrap, off while the live part is written and on again after it: a line laid out for a
 * width the terminal has already left behind (a resize not yet told) takes one row all the same, so that the cursor
 * goes back to the first line, not to the middle of a wrapped one.
 */
const NO_WRAP = '\x1b[?7l';
const WRAP = '\x1b[?7h';

/**
 * The live part of a stream's view at the bottom of a terminal (the status line, the key hints, the inspector):
 * redrawn in place under the lines that scroll above it, which are each written once and left to the terminal.
 *
 * It is drawn from its first line down, and between two draws the cursor waits, hidden, at the start of that line.
 * A terminal keeps the cursor on its character when a resize rewraps the screen, so whatever the new width made of
 * the live part (rows of a line that no longer fits, or none), it is all below the cursor: the next draw erases from
 * there to the end of the screen, and never reaches a line above it. Nothing is counted in rows that the terminal
 * could have changed. docs/decisions/2026-11-28-live-view-resize-scrollback.md
 */
export class LivePart {
  readonly #out: OutStream;
  readonly #stderr: OutStream;
  #lines: readonly string[] = [];
  /** The terminal may have rewrapped what was drawn: the next `show` draws even unchanged lines. */
  #resized = false;

  /** `stderr`: where notices go, on the same terminal. */
  constructor(out: OutStream, stderr: OutStream) {
    this.#out = out;
    this.#stderr = stderr;
    out.write(HIDE_CURSOR);
  }

  /**
   * Draws `lines` (each narrower than the terminal) as the live part; nothing is written when they are unchanged,
   * unless the terminal was resized since the last draw.
   */
  show(lines: readonly string[]): void {
    const same = lines.length === this.#lines.length && lines.every((line, i) => line === this.#lines[i]);
    if (same && !this.#resized) return;
    this.#lines = lines;
    this.#resized = false;
    this.#out.write(`${ERASE_LIVE_PART}${this.#frame()}`);
  }

  /** The terminal's size changed: the next `show` draws the live part again, however the terminal rewrapped it. */
  resized(): void {
    this.#resized = true;
  }

  /** The lines drawn last. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /**
   * Text written above the live part, which is drawn again under it (as `lines`, when given): finished lines (ending
   * in a line break) that stay in the scrollback, or a switch between the main and the alternate screen.
   */
  above(text: string, lines: readonly string[] = this.#lines): void {
    this.#lines = lines;
    this.#out.write(`${ERASE_LIVE_PART}${text}${this.#frame()}`);
  }

  /** A line on stderr, above the live part. */
  notice(text: string): void {
    this.#out.write(ERASE_LIVE_PART);
    this.#stderr.write(text);
    this.#out.write(this.#frame());
  }

  /** The live part, drawn a last time (as `lines`, when given), stays; the cursor goes under it, shown again. */
  end(lines: readonly string[] = this.#lines): void {
    this.#lines = lines;
    const last = lines.length > 0 ? `${NO_WRAP}${lines.join('\n')}\n${WRAP}` : '';
    this.#out.write(`${ERASE_LIVE_PART}${last}${SHOW_CURSOR}`);
  }

  /** The lines, one row each, and the cursor back at the start of the first. */
  #frame(): string {
    const n = this.#lines.length;
    if (n === 0) return '';
    return `${NO_WRAP}${this.#lines.join('\n')}\r${n > 1 ? `\x1b[${n - 1}A` : ''}${WRAP}`;
  }
}
