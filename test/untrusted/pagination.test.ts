import { describe, expect, it } from 'vitest';
import { type Behaviour, hostileServerPerTest } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/run-cli.js';

const hostile = hostileServerPerTest();

/** Every page empty, whatever was asked, under a total of a trillion. */
const lyingTotals: Behaviour = (req, res) => {
  const page = Number(req.query.get('page') ?? 0);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ start: page * 100, limit: 100, total: 1e12, permissions: [] }));
};

/** A new checkpoint on every page, each 1,000 characters long, and nothing in the pages. */
function endlessCheckpoints(items: unknown[] = []): Behaviour {
  let n = 0;
  return (_req, res) => {
    n++;
    const next = `${n}-`.padEnd(1000, 'c');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ directory_provisionings: items, next }));
  };
}

describe('pagination against a service that lies', () => {
  it('stops after 3 empty pages in a row under a total of a trillion: exit 7', async () => {
    const server = await hostile({ api: lyingTotals });
    const r = await runCli(['users', 'permissions', 'db|u1', '--all', '--concurrency', '1', '-o', 'ndjson'], {
      env: server.env(),
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'incomplete: printed 0 of 1000000000000\n' +
        `${JSON.stringify({ error: { status: null, code: 'malformed_answer', message: 'malformed answer from the service: 3 pages in a row with nothing new, after 0 of the 1000000000000 permissions it announced', exit_code: 7 } })}\n`,
    );
    // The first page, the three empty ones, and at most the one fetched ahead.
    expect(server.apiRequests().length).toBeLessThanOrEqual(5);
  });

  it('stops after 3 empty checkpoint pages in a row, however new each checkpoint is: exit 7', async () => {
    const server = await hostile({ api: endlessCheckpoints() });
    const r = await runCli(['provisionings', 'list', '--all'], { env: server.env() });
    expect(r).toEqual({
      code: 7,
      stdout: '',
      stderr:
        'incomplete: printed 0, more existed\n' +
        'svcadm: malformed answer from the service: 3 pages in a row with nothing new, each with a new checkpoint\n',
    });
    expect(server.apiRequests()).toHaveLength(3);
  });

  it('stops after 3 pages in a row that repeat the items already sent, each with a new checkpoint: exit 7', async () => {
    const server = await hostile({ api: endlessCheckpoints([{ connection_id: 'c1' }, { connection_id: 'c2' }]) });
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env: server.env() });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('{"connection_id":"c1"}\n{"connection_id":"c2"}\n');
    expect(r.stderr).toBe(
      'incomplete: printed 2, more existed\n' +
        '{"error":{"status":null,"code":"malformed_answer","message":"malformed answer from the service: 3 pages in a row with nothing new, each with a new checkpoint","exit_code":7}}\n',
    );
    // The first page, then the three that repeat it.
    expect(server.apiRequests()).toHaveLength(4);
  });

  it('refuses a checkpoint that is not 1 to 1024 visible ASCII characters: exit 7, not followed', async () => {
    for (const next of ['x'.repeat(1025), 'abc\u001b[2Jdef', 'déjà']) {
      const server = await hostile({
        api: (_req, res) => res.end(JSON.stringify({ directory_provisionings: [{ connection_id: 'c1' }], next })),
      });
      const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env: server.env() });
      expect(r.code).toBe(7);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr).error.message).toBe(
        'malformed answer from the service: next is not a checkpoint (1 to 1024 visible ASCII characters)',
      );
      expect(server.apiRequests()).toHaveLength(1);
      await server.close();
    }
  });

  it('still follows a long run of distinct checkpoints and stops at the first one given twice', async () => {
    let n = 0;
    const server = await hostile({
      api: (_req, res) => {
        n++;
        const next = n <= 500 ? `cp-${n}` : 'cp-7';
        res.end(JSON.stringify({ directory_provisionings: [{ connection_id: `c${n}` }], next }));
      },
    });
    const r = await runCli(['provisionings', 'list', '--all', '-o', 'ndjson'], { env: server.env() });
    expect(r.code).toBe(7);
    expect(r.stdout.trim().split('\n')).toHaveLength(501);
    expect(r.stderr).toBe(
      'incomplete: printed 501, more existed\n' +
        '{"error":{"status":null,"code":"malformed_answer","message":"the service returned the same pagination checkpoint twice","exit_code":7}}\n',
    );
  });
});
