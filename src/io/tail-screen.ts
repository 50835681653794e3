import { once } from 'node:events';
import type { Clock, Timer } from '../clock.js';
import type { IOStreams } from './io-streams.js';
import { LivePart } from './live-part.js';
import type { ItemStream, StreamView } from './stream-types.js';

const REDRAW_MS = 100;

/**
 * The live view of a stream on a terminal: lines scroll above one status line, kept at the bottom and redrawn in
 * place (at most every 100 ms). Each line is written once and left to the terminal, so memory stays flat and the
 * scrollback holds every line once; a resize draws the status line again for the new width (`LivePart`).
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
  const format = view.lines(color);
  let status = initial;
  let timer: Timer | undefined;
  const part = new LivePart(out, io.stderr);
  const statusLine = () => [view.status(status, width, color)];
  const onResize = () => {
    width = columns();
    part.resized();
    part.show(statusLine());
  };
  out.on('resize', onResize);
  part.show(statusLine());
  return {
    live: true,
    async write(items) {
      let text = '';
      for (const item of items) text += format(view.row(item), width);
      part.above(text, statusLine());
      if (out.writableNeedDrain) await once(out, 'drain');
    },
    notice(text, always) {
      if (!always && io.quiet) return;
      part.notice(`${text}\n`);
    },
    status(next) {
      status = next;
      timer ??= clock.setTimeout(() => {
        timer = undefined;
        part.show(statusLine());
      }, REDRAW_MS);
    },
    close(final) {
      timer?.cancel();
      out.off('resize', onResize);
      if (final !== undefined) status = final;
      part.end(statusLine());
    },
  };
}
