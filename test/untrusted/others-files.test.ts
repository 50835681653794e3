import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { requirement } from '../helpers/requires.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

// Issue 28, point 18: a second OS user (mallory) left a 0666 output file and a cursor of her choosing where root's
// tail would use them. Local files svcadm trusts are refused, as ssh refuses them, when they belong to another user
// (root aside) or when their group or others can write them: exit 2, nothing sent, the file left as it was.

const hostile = hostileServerPerTest();
const root = requirement(process.getuid?.() === 0, 'needs root to give a file to another user (chown 65534)');
/** nobody: a user other than the one running the tests. */
const MALLORY = 65534;

const oneEvent = () => sse(sseMessage('c9', 'user.created', '{"offset":"c9"}'), { keepOpen: true });

/** A file holding `text`, mode `mode`, given to `owner` when one is named. */
function plantedFile(name: string, text: string, mode: number, owner?: number): string {
  const path = join(tempConfigDir(), name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  if (owner !== undefined) chownSync(path, owner, owner);
  return path;
}

async function tail(argv: string[]) {
  const server = await hostile({ api: oneEvent() });
  const r = await runCli(['events', 'tail', '--max-events', '1', ...argv], { env: server.env() });
  return { r, requests: server.requests };
}

describe('local files that another user owns or can write (issue 28, point 18)', () => {
  it.skipIf(root.missing)(root.title("an output file of another user's is refused, even mode 0600"), async () => {
    const path = plantedFile('events.ndjson', 'mallory\n', 0o600, MALLORY);
    const { r, requests } = await tail(['--since', '1h', '--output-file', path]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to use the output file ${path}: it belongs to user ${MALLORY}, not to you — use a file of your own\n`,
    });
    expect(requests).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('mallory\n');
  });

  it('an output file that its group or others can write is refused, with the chmod that fixes it', async () => {
    for (const mode of [0o666, 0o620]) {
      const path = plantedFile('events.ndjson', 'kept\n', mode);
      const { r, requests } = await tail(['--since', '1h', '--output-file', path]);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: refusing to use the output file ${path}: it is writable by its group or others — run: chmod go-w ${path}\n`,
      });
      expect(requests).toEqual([]);
      expect(readFileSync(path, 'utf8')).toBe('kept\n');
    }
  });

  it.skipIf(root.missing)(root.title("a cursor file of another user's is neither read nor written"), async () => {
    for (const start of [[], ['--from', 'c1']]) {
      const path = plantedFile('cursor', 'c7\n', 0o644, MALLORY);
      const { r, requests } = await tail(['--cursor-file', path, ...start]);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `svcadm: refusing to use the cursor file ${path}: it belongs to user ${MALLORY}, not to you — use a file of your own\n`,
      });
      expect(requests).toEqual([]);
      expect(readFileSync(path, 'utf8')).toBe('c7\n');
    }
  });

  it('a cursor file that its group or others can write is refused before anything is sent', async () => {
    const path = plantedFile('cursor', 'c7\n', 0o666);
    const { r, requests } = await tail(['--cursor-file', path]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `svcadm: refusing to use the cursor file ${path}: it is writable by its group or others — run: chmod go-w ${path}\n`,
    });
    expect(requests).toEqual([]);
  });

  it('files of its own, 0600 or 0644, are used as before', async () => {
    const output = plantedFile('events.ndjson', 'kept\n', 0o644);
    const cursor = plantedFile('cursor', 'c7\n', 0o600);
    const { r } = await tail(['--cursor-file', cursor, '--output-file', output, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(output, 'utf8')).toBe(`kept\n${r.stdout}`);
    expect(readFileSync(cursor, 'utf8')).toBe('c9\n');
  });
});
