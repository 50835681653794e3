import { Box, Text, useInput, useStdout } from 'ink';
import { useLayoutEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { hintLine, inspectorLines, payloadLines, withinScreen } from './frames.js';
import type { LiveModel } from './model.js';

/** Switches to the alternate screen (and to its top) and back: the inspector leaves the scrollback as it was. */
export const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
export const LEAVE_ALT_SCREEN = '\x1b[?1049l';

export interface LiveAppProps<S> {
  model: LiveModel<unknown, S>;
  /** The status line for `width` columns (never wraps). */
  statusLine: (status: S, width: number) => string;
  color: boolean;
  /**
   * Where finished lines and the switches of screen go, above the live part, which is drawn again under them: Ink's
   * own stdout writer when not given.
   */
  write?: ((text: string) => void) | undefined;
  /** Told the lines of each frame: where they are drawn when Ink does not draw them itself (`startLiveTail`). */
  onFrame?: ((lines: readonly string[]) => void) | undefined;
}

/**
 * The live view of `events tail`: finished lines go into the scrollback through a writer that takes the live part
 * away, writes them, and draws the live part again under them (what `Static` does, without Ink keeping every line it
 * ever printed, or laying each out cell by cell — docs/decisions/2026-11-23-live-view-lines-not-static.md), under
 * them the status line and one line of key hints; `i` puts the inspector on the alternate screen instead. Once
 * stopped, only the last status line: the count of each type goes below it as plain lines (`startLiveTail`).
 */
export function LiveApp<S>({ model, statusLine, color, write: above, onFrame }: LiveAppProps<S>) {
  const s = useSyncExternalStore(model.subscribe, model.snapshot);
  const { write: inkWrite } = useStdout();
  const write = above ?? inkWrite;
  const mode = useRef(s.mode);
  useInput((input, key) => {
    // Onto the alternate screen before the inspector is drawn, so that nothing of it lands in the scrollback.
    if ((input === 'i' || key.return) && model.canInspect) write(ENTER_ALT_SCREEN);
    model.key(input, key);
  });
  const selected = s.mode === 'inspect' ? s.ring[s.selected] : undefined;
  const payload = useMemo(() => payloadLines(selected), [selected]);
  const frame =
    s.mode === 'inspect'
      ? inspectorLines(s, payload, color)
      : s.final
        ? [statusLine(s.final.status, s.columns)]
        : [statusLine(s.status, s.columns), hintLine(s)];
  const live = withinScreen(frame, s.rows);
  useLayoutEffect(() => model.attach(write), [model, write]);
  // Before the switch of screens below: the frame it draws again on the main screen is this one.
  useLayoutEffect(() => onFrame?.(live));
  useLayoutEffect(() => {
    // Back from the inspector: the footer is drawn (on the alternate screen), now the main screen comes back under
    // it, and only then what came meanwhile goes into the scrollback.
    if (mode.current === 'inspect' && s.mode !== 'inspect') {
      write(LEAVE_ALT_SCREEN);
      model.release();
    }
    mode.current = s.mode;
  }, [s.mode, write, model]);
  return (
    <Box flexDirection="column">
      {live.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines are positions on the screen
        <Text key={i} wrap="truncate-end">
          {line === '' ? ' ' : line}
        </Text>
      ))}
    </Box>
  );
}
