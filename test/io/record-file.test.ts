import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { RecordFile } from '../../src/io/record-file.js';
import { requirement } from '../helpers/requires.js';
import { tempConfigDir } from '../helpers/run-cli.js';

// The file rules of RecordFile.open, as the dead-letter file (`--dead-letter`) gets them: the output file's own are
// tested end to end in commands/events-output-file.test.ts and untrusted/others-files.test.ts.

const root = requirement(process.getuid?.() === 0, 'needs root to give a file to another user (chown 65534)');

function refusal(path: string): { message: string; hint: string | undefined; code: string | undefined } | undefined {
  try {
    RecordFile.open(path, 'the dead-letter file', '--dead-letter').close();
    return undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { message: err.message, hint: err.hint, code: err.code };
  }
}

describe('RecordFile.open for the dead-letter file (issue 28, point 18)', () => {
  it('names the file and its flag, and refuses one its group or others can write', () => {
    const dir = tempConfigDir();
    expect(refusal('')).toEqual({ message: '--dead-letter needs a path', hint: undefined, code: undefined });
    const path = join(dir, 'dead.ndjson');
    writeFileSync(path, 'kept\n');
    chmodSync(path, 0o646);
    expect(refusal(path)).toEqual({
      message: `refusing to use the dead-letter file ${path}: it is writable by its group or others`,
      hint: `run: chmod go-w ${path}`,
      code: 'file_unsafe',
    });
    chmodSync(path, 0o600);
    expect(refusal(path)).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('kept\n');
  });

  it.skipIf(root.missing)(root.title("refuses another user's file"), () => {
    const path = join(tempConfigDir(), 'dead.ndjson');
    writeFileSync(path, '', { mode: 0o600 });
    chownSync(path, 65534, 65534);
    expect(refusal(path)).toEqual({
      message: `refusing to use the dead-letter file ${path}: it belongs to user 65534, not to you`,
      hint: 'use a file of your own',
      code: 'file_unsafe',
    });
  });
});
