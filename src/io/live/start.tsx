import { once } from 'node:events';
import { render } from 'ink';
import type { Clock, Timer } from '../../clock.js';
import type { IOStreams } from '../io-streams.js';
import { LivePart } from '../live-part.js';
import { preferSmallHeap } from '../memory-policy.js';
import type { ItemStream, StreamFormats, StreamView } from '../stream-types.js';
import { LiveApp } from './app.js';
import { countLines } from './frames.js';
import { type LiveEntry, LiveModel, RING_MAX_EVENTS } from './model.js';

/** New events and the status reach the screen at most this often: the stream never waits for a frame. */
const FRAME_MS = 100;
/** Events waiting for the next frame, at most: past it the stream waits for the frame. */
const PENDING_MAX = 1000;
const EMPTY = new Uint8Array(0);

export interface LiveTailOptions<I, S, R> {
  io: IOStreams;
  view: StreamView<I, S, R>;
  formats: Pick<StreamFormats<I, S, R>, 'json'>;
  initial: S;
  color: boolean;
  clock: Clock;
}

/**
 * The interactive live view (Ink) as an item stream: fed the same items and status as the plain lines, it never
 * holds the stream up except for the terminal's own backpressure. `q` aborts `quit`; Ctrl-C raises SIGINT, so that
 * the stop is the signal's own (exit 130), as with the terminal's raw mode off.
 */
export function startLiveTail<I, S, R>(options: LiveTailOptions<I, S, R>): ItemStream<I, S> {
  const { io, view, formats, color, clock } = options;
  preferSmallHeap();
  const out = io.stdout;
  const quit = new AbortController();
  const model = new LiveModel<R, S>({
    lines: () => view.lines(color),
    initial: options.initial,
    columns: out.columns || 80,
    rows: out.rows || 24,
    quit: () => quit.abort(),
    interrupt: () => process.kill(process.pid, 'SIGINT'),
  });
  const part = new LivePart(out, io.stderr);
  const app = (
    <LiveApp
      model={model as LiveModel<unknown, S>}
      statusLine={(status: S, width: number) => view.status(status, width, color)}
      color={color}
      write={(text) => part.above(text)}
      onFrame={(lines) => part.show(lines)}
    />
  );
  const instance = render(app, {
    stdout: layoutOnly(out as NodeJS.WriteStream),
    stdin: io.stdin as NodeJS.ReadStream,
    stderr: io.stderr as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
    // Ink's own frames go nowhere (`layoutOnly`): unthrottled, it keeps no timer of its own; the model already
    // changes at most every FRAME_MS, and each frame reaches the terminal as its commit ends (`onFrame`).
    maxFps: 0,
  });
  // React runs an update from outside it (the model's) a moment later; rendering the same tree again runs it now.
  const flush = () => instance.rerender(app);
  let pending: Array<Omit<LiveEntry<R>, 'json'> & { json: Uint8Array }> = [];
  let drawn: Array<(value: unknown) => void> = [];
  let status: S | undefined;
  let timer: Timer | undefined;
  const frame = () => {
    timer = undefined;
    const entries = pending;
    pending = [];
    model.add(entries);
    const waiting = drawn;
    drawn = [];
    for (const resolve of waiting) resolve(undefined);
    if (status !== undefined) model.status(status);
    status = undefined;
  };
  const schedule = () => {
    timer ??= clock.setTimeout(frame, FRAME_MS);
  };
  const onResize = () => {
    part.resized();
    model.resize(out.columns || 80, out.rows || 24);
    flush();
    part.show(part.lines);
  };
  out.on('resize', onResize);
  return {
    live: true,
    quit: quit.signal,
    async write(items) {
      for (const item of items) {
        const row = view.row(item);
        pending.push({ row, kind: view.kind(row), text: view.text(row), json: Buffer.concat(formats.json(item)) });
        // Only the events the inspector can still reach are kept whole; nothing holds the item itself.
        const old = pending[pending.length - 1 - RING_MAX_EVENTS];
        if (old) old.json = EMPTY;
      }
      schedule();
      // A screen that cannot keep up holds the stream up (as the plain lines do), never memory.
      if (pending.length >= PENDING_MAX) await new Promise((resolve) => drawn.push(resolve));
      // Rejects if stdout fails meanwhile, rather than waiting for a 'drain' that never comes.
      if (out.writableNeedDrain) await once(out, 'drain');
    },
    notice(text, always) {
      if (!always && io.quiet) return;
      part.notice(`${text}\n`);
    },
    status(next) {
      status = next;
      schedule();
    },
    close(final) {
      timer?.cancel();
      out.off('resize', onResize);
      model.leaveInspector();
      flush();
      frame();
      flush();
      model.close(final ?? model.snapshot().status);
      flush();
      instance.unmount();
      part.end();
      // Below the view, as plain lines: however many types there were, nothing drawn before is cleared for them.
      const last = model.snapshot();
      const below = last.final ? countLines(last.final.counts, last.columns) : [];
      if (last.rows < 2 && last.final) below.unshift(view.status(last.final.status, last.columns, color));
      if (below.length > 0) out.write(`${below.join('\n')}\n`);
    },
  };
}

/**
 * The terminal as Ink sees it: Ink lays the frame out for its width and reads the keys, and writes nothing to it;
 * `LivePart` draws the frame (Ink counts its frames in rows from the bottom, which a resize can change under it).
 */
function layoutOnly(out: NodeJS.WriteStream): NodeJS.WriteStream {
  // Callbacks keep their order with what was written before.
  const write = (_chunk: unknown, ...rest: unknown[]) => (out.write as (...args: unknown[]) => boolean)('', ...rest);
  return new Proxy(out, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
