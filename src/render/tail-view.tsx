import { Box, Text, useStderr, useStdout } from 'ink';
import { useLayoutEffect } from 'react';
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

export type Write = (data: string) => void;

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

/** The live view: only the status line is Ink's; event lines are written above it through Ink's own writers. */
export function TailView({
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
