import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hostileServerPerTest, sse, sseMessage } from '../helpers/hostile-server.js';
import { BIN, type CliResult } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

/** The built binary under `node …nodeFlags`. */
function runNode(nodeFlags: string[], argv: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeFlags, BIN, ...argv],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('events tail with and without WebAssembly', () => {
  it('prints the same lines when WebAssembly is not there (node --jitless): the parser takes every message', async () => {
    const server = await hostile({
      api: sse(
        [
          ':connected\nretry: 2000\n\n',
          sseMessage('f1', 'user.created', '{"user_id":"u1","name":"Zoë"}'),
          sseMessage('f2', 'user.updated', '{ "spaced": 1 }'),
          sseMessage('f3', 'user.updated', '{"bidi":"\u202e","esc":"\\u001b"}'),
          sseMessage('f4', 'user.updated', 'not json'),
          sseMessage('f5', 'user.deleted', '{}'),
        ],
        { keepOpen: true },
      ),
    });
    const argv = ['events', 'tail', '--max-events', '4', '-o', 'ndjson'];
    const expected = {
      code: 0,
      stdout:
        '{"type":"user.created","user_id":"u1","name":"Zoë"}\n' +
        '{"type":"user.updated","spaced":1}\n' +
        '{"type":"user.updated","bidi":"\\u202e","esc":"\\u001b"}\n' +
        '{"type":"user.deleted"}\n',
      stderr: 'svcadm: warning: skipped a user.updated message whose data is not a JSON object\n',
    };
    expect(await runNode([], argv, server.env())).toEqual(expected);
    const jitless = await runNode(['--jitless', '--no-warnings'], argv, server.env());
    // V8 says on stderr that --jitless turns WebAssembly off; svcadm's own output is the same.
    expect({ ...jitless, stderr: jitless.stderr.replace(/^Warning: disabling flag --expose_wasm.*\n/m, '') }).toEqual(
      expected,
    );
  });
});
