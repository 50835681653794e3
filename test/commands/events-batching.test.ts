import { spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loopbackPerTest } from '../helpers/loopback-server.js';
import { BIN, runCli, tempConfigDir } from '../helpers/run-cli.js';

const loopback = loopbackPerTest();

/** One SSE message of type `user.created` at offset `ofs-<n>`. */
function message(n: number): string {
  return `id: ofs-${n}\nevent: user.created\ndata: {"offset":"ofs-${n}","n":${n}}\n\n`;
}

/** The NDJSON line svcadm prints for `message(n)`. */
function line(n: number): string {
  return `{"type":"user.created","offset":"ofs-${n}","n":${n}}\n`;
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

describe('events tail: batching stdout writes', () => {
  it('writes a lone event at once while the stream stays open (no timer holds it back)', async () => {
    let open: ServerResponse | undefined;
    const server = await loopback([
      (_req, res) => {
        openStream(res);
        res.write(message(1));
        open = res;
      },
    ]);
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '-o', 'ndjson'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVCADM_DOMAIN: server.url,
        SVCADM_TOKEN: 'tok-123',
        SVCADM_CONFIG_DIR: tempConfigDir(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const streamOpenWhenPrinted = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString('utf8');
        if (stdout.endsWith('\n')) resolve(open !== undefined && !open.writableEnded && !open.destroyed);
      });
    });
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (exitCode) => resolve(exitCode));
      child.kill('SIGTERM');
    });
    expect(streamOpenWhenPrinted).toBe(true);
    expect(stdout).toBe(line(1));
    expect(code).toBe(143);
    expect(stderr).toBe(
      `svcadm: terminated after 1 event\nresume with: svcadm --domain ${server.url} -o ndjson events tail --from ofs-1\n`,
    );
  }, 20_000);

  it('writes what one socket read carried, many small HTTP chunks, as one stdout write', async () => {
    const count = 200;
    const server = await loopback([
      (_req, res) => {
        openStream(res);
        // One chunk of the HTTP body per event, sent together: the receiver reads them in one go.
        res.cork();
        for (let n = 1; n <= count; n++) res.write(message(n));
        process.nextTick(() => res.uncork());
      },
    ]);
    const writes: string[] = [];
    const r = await runCli(['events', 'tail', '-o', 'ndjson', '--max-events', String(count)], {
      env: { SVCADM_DOMAIN: server.url, SVCADM_TOKEN: 'tok-123' },
      onStdout: (chunk) => writes.push(chunk),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(Array.from({ length: count }, (_, i) => line(i + 1)).join(''));
    expect(writes.length).toBe(1);
  });
});
