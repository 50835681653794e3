import { once } from 'node:events';
import { render } from 'ink';
import type { Clock, Timer } from '../clock.js';
import type { InStream, OutStream } from '../context.js';
import { type TailStatus, TailView, type Write } from '../render/tail-view.js';
import type { IOStreams } from './io-streams.js';
import type { LineSink } from './printer.js';

export interface TailScreen {
  /** Finished event lines: printed once above the status line and then forgotten (memory stays flat). */
  writeLines(text: string): void;
  notice(text: string): void;
  update(status: TailStatus): void;
  close(): void;
}

const RERENDER_MS = 100;

/** Starts the live view of `events tail` on a terminal; status changes are drawn at most every 100 ms. */
export function startTailScreen(
  io: { stdout: OutStream; stderr: OutStream; stdin: InStream },
  initial: TailStatus,
  color: boolean,
  clock: Clock,
): TailScreen {
  let out: Write = (data) => io.stdout.write(data);
  let err: Write = (data) => io.stderr.write(data);
  const onReady = (o: Write, e: Write) => {
    out = o;
    err = e;
  };
  let status = initial;
  let timer: Timer | undefined;
  const instance = render(<TailView status={status} color={color} onReady={onReady} />, {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const flush = () => {
    timer = undefined;
    instance.rerender(<TailView status={status} color={color} onReady={onReady} />);
  };
  return {
    writeLines: (text) => out(text),
    notice: (text) => err(text),
    update(next) {
      status = next;
      timer ??= clock.setTimeout(flush, RERENDER_MS);
    },
    close() {
      timer?.cancel();
      flush();
      instance.unmount();
    },
  };
}

/** The live view as the Printer's line sink: event lines above the status line, notices beside them. */
export function tailScreenSink(io: IOStreams, initial: TailStatus, color: boolean, clock: Clock): LineSink<TailStatus> {
  const screen = startTailScreen(io, initial, color, clock);
  return {
    write: async (text) => {
      screen.writeLines(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
      if (io.stdout.writableNeedDrain) await once(io.stdout, 'drain');
    },
    notice: (text, always) => {
      if (always || !io.quiet) screen.notice(`${text}\n`);
    },
    status: (status) => screen.update(status),
    close: () => screen.close(),
  };
}
