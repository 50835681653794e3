import { once } from 'node:events';
import type { Clock, Timer } from '../clock.js';
import { clip } from '../render/text-width.js';
import type { IOStreams } from './io-streams.js';
import type { ItemStream, StreamView } from './stream-types.js';

const REDRAW_MS = 100;
const ERASE_LINE = '\r\x1b[2K';
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

type Entry<R> = { row: R } | { notice: string };

/**
 * The live view of a stream on a terminal: lines scroll above one status line, kept at the bottom and redrawn in
 * place (at most every 100 ms). Only the status line is ever rewritten; what scrolled by is left to the terminal, so
 * memory stays flat. On a resize the screen is drawn again from the last screenful of rows, laid out for the new
 * width, so no piece of a status line drawn for the old width is left behind (terminals reflow it differently).
 */
export function startTailScreen<I, S, R>(
  io: IOStreams,
  view: StreamView<I, S, R>,
  initial: S,
  color: boolean,
  clock: Clock,
): ItemStream<I, S> {
  const out = io.stdout;
  const columns = () => out.columns || 80;
  let width = columns();
  let format = view.lines(color);
  let status = initial;
  let timer: Timer | undefined;
  const recent: Array<Entry<R>> = [];
  const remember = (entry: Entry<R>) => {
    recent.push(entry);
    const keep = Math.max(out.rows || 24, 1);
    if (recent.length > keep) recent.splice(0, recent.length - keep);
  };
  const draw = (above = '') => out.write(`${ERASE_LINE}${above}${view.status(status, width, color)}`);
  const onResize = () => {
    width = columns();
    format = view.lines(color);
    const text = recent.map((e) => ('row' in e ? format(e.row, width) : `${clip(e.notice, width - 1)}\n`)).join('');
    const lines = text.split('\n').slice(0, -1);
    const screen = lines.slice(-Math.max(0, (out.rows || 24) - 1));
    out.write(CLEAR_SCREEN);
    draw(screen.map((line) => `${line}\n`).join(''));
  };
  out.on('resize', onResize);
  draw();
  return {
    live: true,
    async write(items) {
      let text = '';
      for (const item of items) {
        const row = view.row(item);
        remember({ row });
        text += format(row, width);
      }
      draw(text);
      if (out.writableNeedDrain) await once(out, 'drain');
    },
    notice(text, always) {
      if (!always && io.quiet) return;
      out.write(ERASE_LINE);
      io.stderr.write(`${text}\n`);
      remember({ notice: text });
      draw();
    },
    status(next) {
      status = next;
      timer ??= clock.setTimeout(() => {
        timer = undefined;
        draw();
      }, REDRAW_MS);
    },
    close(final) {
      timer?.cancel();
      out.off('resize', onResize);
      if (final !== undefined) status = final;
      draw();
      out.write('\n');
    },
  };
}
