import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { RecordedFile } from '../../../src/events/pipeline/recorded-file.js';
import { tempConfigDir } from '../../helpers/run-cli.js';

/** A file of the given text, and every entry its source yields from `fromLine`, with what it knows of the file. */
async function read(text: string, fromLine = 1) {
  const file = join(tempConfigDir(), 'recorded.ndjson');
  writeFileSync(file, text);
  const source = await RecordedFile.open(file, fromLine, new AbortController().signal);
  const atOpen = source.linesRead;
  const entries: unknown[] = [];
  for await (const batch of source.batches(new AbortController().signal)) {
    for (const entry of batch) {
      if (entry.kind === 'malformed') entries.push(['malformed', entry.line]);
      else entries.push([entry.kind, entry.offset]);
    }
  }
  return { file, atOpen, linesRead: source.linesRead, entries };
}

const event = (n: number) => `{"type":"t","offset":"o${n}"}`;

describe('RecordedFile: the lines a file has (linesRead)', () => {
  it('counts every line read, the ones --from-line skips included, and a last line without its break', async () => {
    expect(await read(`${event(1)}\n${event(2)}\n${event(3)}\n`)).toMatchObject({
      atOpen: 0,
      linesRead: 3,
      entries: [
        ['event', 'o1'],
        ['event', 'o2'],
        ['event', 'o3'],
      ],
    });
    expect(await read(`${event(1)}\n${event(2)}\n${event(3)}`, 3)).toMatchObject({
      atOpen: 2,
      linesRead: 3,
      entries: [['event', 'o3']],
    });
    // The line after the last: nothing to read, and the count says why.
    expect(await read(`${event(1)}\n\n${event(3)}\n`, 4)).toMatchObject({ atOpen: 3, linesRead: 3, entries: [] });
    expect(await read('', 1)).toMatchObject({ atOpen: 0, linesRead: 0, entries: [] });
  });

  it('refuses a --from-line past the line after the last at open: a UsageError with the count', async () => {
    const file = join(tempConfigDir(), 'recorded.ndjson');
    writeFileSync(file, `${event(1)}\n${'x'.repeat(200 * 1024)}\n${event(3)}`);
    const running = new AbortController().signal;
    await expect(RecordedFile.open(file, 5, running)).rejects.toThrow(
      new UsageError(`--from-line 5 is past the end of ${file}: it has 3 lines`),
    );
    expect((await RecordedFile.open(file, 4, running)).linesRead).toBe(3);
  });

  it('starts at the line asked for, after lines longer than a read', async () => {
    const long = `{"type":"t","offset":"long","pad":"${'p'.repeat(150 * 1024)}"}`;
    expect(await read(`${long}\n${long}\n${event(3)}\n${event(4)}\n`, 3)).toMatchObject({
      atOpen: 2,
      linesRead: 4,
      entries: [
        ['event', 'o3'],
        ['event', 'o4'],
      ],
    });
  });
});
