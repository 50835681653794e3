import { lstatSync } from 'node:fs';
import type { Invocation } from '../../cli/host.js';
import { UsageError } from '../../errors.js';
import { eventFormats } from '../../events/pipeline/event-formats.js';
import { RecordedFile } from '../../events/pipeline/recorded-file.js';
import { LinePositions } from '../../events/run/positions.js';
import { runEvents } from '../../events/run/run.js';
import { groupedCount } from '../../render/progress-text.js';
import { neutralize } from '../../text/sanitize.js';
import type { ReplayOptions } from './options.js';

/**
 * `svcadm events replay <file>`: a recorded file as the source of the events run, through the same filters, formats
 * and forwarding as the tail; the position is the line to resume from (`--from-line`).
 */
export async function runEventsReplay(inv: Invocation, opts: ReplayOptions): Promise<void> {
  const file = await RecordedFile.open(opts.file, opts.fromLine, inv.ctx.interrupt);
  refuseItsOwnOutput(inv, file, opts);
  const name = neutralize(opts.file);
  await runEvents(
    inv,
    {
      open: () => file,
      eventOf: (event) => event,
      formats: eventFormats(inv.ctx.clock, opts.types),
      positions: new LinePositions(opts.fromLine),
      streams: [],
      command: ['events', 'replay', opts.file],
      keep: opts.strict ? ['--strict'] : [],
      paste: inv.paste,
      reading: {
        path: opts.file,
        progress: (count) => {
          const percent = file.size > 0 ? Math.floor((file.bytesRead * 100) / file.size) : 100;
          return `replaying ${name}: ${percent}% · ${groupedCount(count)} events`;
        },
      },
    },
    opts,
  );
  // The run ended without a line to replay: `--from-line` one past the last line (where a resume line points once
  // the last line was settled), or an empty file. Said, so that a wrong file or line is seen.
  if (file.linesRead < opts.fromLine) {
    inv.io.notice(
      file.linesRead === 0
        ? `svcadm: nothing to replay: ${name} is empty`
        : `svcadm: nothing to replay: ${name} has ${file.linesRead} ${file.linesRead === 1 ? 'line' : 'lines'}, all before --from-line ${opts.fromLine}`,
    );
  }
}

/**
 * A replay never writes into the file it reads (the same device and inode, a hard link included): it would read its
 * own output again without end. Refused before anything is sent: exit 2.
 */
function refuseItsOwnOutput(inv: Invocation, file: RecordedFile, opts: ReplayOptions): void {
  const deadLetter = opts.forward?.deadLetter;
  const stats = deadLetter === undefined ? undefined : lstatSync(deadLetter, { throwIfNoEntry: false });
  const same = (s: { dev: number; ino: number } | undefined) => s?.dev === file.dev && s.ino === file.ino;
  if (deadLetter !== undefined && same(stats)) {
    throw new UsageError(
      `--dead-letter ${neutralize(deadLetter)} is the file being replayed: the replay would read its own dead letters again without end`,
      'give the dead letters another file (replay that one once this replay is done)',
    );
  }
  if (inv.io.stdoutIs(file)) {
    throw new UsageError(
      `stdout is the file being replayed (${neutralize(opts.file)}): the replay would read what it prints without end`,
      'redirect stdout to another file',
    );
  }
}
