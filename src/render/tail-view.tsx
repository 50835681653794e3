import { Box, render, Text, useStderr, useStdout } from 'ink';
import { useLayoutEffect } from 'react';
import type { InStream, OutStream } from '../context.js';
import { neutralize } from './sanitize.js';

export interface TailStatus {
  state: 'connecting' | 'connected' | 'reconnecting';
  /** Reconnect attempt (1-based) while reconnecting. */
  attempt: number;
  waitMs?: number | undefined;
  reason?: string | undefined;
  types: readonly string[];
  seen: number;
  /** Events per second, recent. */
  rate: number;
  cursor: string | undefined;
}

type Write = (data: string) => void;

function StatusLine({ status, color }: { status: TailStatus; color: boolean }) {
  const tone = status.state === 'connected' ? 'green' : 'yellow';
  const state =
    status.state === 'reconnecting'
      ? `reconnecting (attempt ${status.attempt}${status.waitMs === undefined ? '' : `, in ${(status.waitMs / 1000).toFixed(1)}s`})`
      : status.state;
  const filters = status.types.length > 0 ? status.types.join(',') : 'all types';
  const cursor = status.cursor === undefined ? '-' : neutralize(status.cursor);
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text {...(color ? { color: tone } : {})} bold={color}>
          {status.state === 'connected' ? '●' : '○'} {state}
        </Text>
        {`  ·  ${neutralize(filters)}  ·  ${status.seen.toLocaleString('en-US')} events  ·  ${status.rate.toFixed(1)}/s  ·  cursor ${cursor}`}
      </Text>
    </Box>
  );
}

/** Hands Ink's own writers out: text written through them lands above the live region without disturbing it. */
function Bridge({ onReady }: { onReady: (out: Write, err: Write) => void }) {
  const { write } = useStdout();
  const { write: writeErr } = useStderr();
  useLayoutEffect(() => onReady(write, writeErr), [onReady, write, writeErr]);
  return null;
}

function TailView({
  status,
  color,
  onReady,
}: {
  status: TailStatus;
  color: boolean;
  onReady: (out: Write, err: Write) => void;
}) {
  return (
    <>
      <Bridge onReady={onReady} />
      <StatusLine status={status} color={color} />
    </>
  );
}

export interface TailViewHandle {
  /** Finished event lines: printed once above the status line and then forgotten (memory stays flat). */
  writeLines(text: string): void;
  notice(text: string): void;
  update(status: TailStatus): void;
  close(): void;
}

const RERENDER_MS = 100;

/** The live view of `events tail`: only the status line is rendered by Ink; event lines are plain writes above it. */
export function startTailView(
  io: { stdout: OutStream; stderr: OutStream; stdin: InStream },
  initial: TailStatus,
  color: boolean,
): TailViewHandle {
  let out: Write = (data) => io.stdout.write(data);
  let err: Write = (data) => io.stderr.write(data);
  const onReady = (o: Write, e: Write) => {
    out = o;
    err = e;
  };
  let status = initial;
  let timer: NodeJS.Timeout | undefined;
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
      timer ??= setTimeout(flush, RERENDER_MS);
    },
    close() {
      if (timer) clearTimeout(timer);
      flush();
      instance.unmount();
    },
  };
}
